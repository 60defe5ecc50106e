//! Cutting an expression DAG into parts (seed 002, Pytato's partitioning;
//! `kd.parallel.partition`): each operator node is assigned to a part; a
//! value computed in one part and read in another crosses the boundary
//! under a reserved name (`_pd_part_ph<n>`), an output of the first part and
//! an input of the second. Parts depend on the parts whose values they
//! read; a cycle among parts (A -> B -> C with A and C in one part and B in
//! another) cannot run in any order and is an error. Everything is
//! deterministic: nodes in post order from the outputs, parts numbered by
//! their first node, boundary names by the node's position.

use std::collections::{BTreeSet, HashMap};

use plait_core::{Error, Result};

use crate::expr::{Expr, NodeKind};

/// The prefix of the names of values crossing part boundaries (reserved:
/// inference and the user never name anything so).
pub const BOUNDARY_PREFIX: &str = "_pd_part_ph";

/// One part of a partitioned DAG.
#[derive(Debug, Clone)]
pub struct Part {
    /// Its number: parts are numbered by their first node in post order.
    pub pid: usize,
    /// The parts whose values it reads.
    pub needed_pids: BTreeSet<usize>,
    /// The values it reads: the DAG's inputs and boundary values, by name.
    pub input_names: BTreeSet<String>,
    /// What it computes, by name: the DAG's outputs and the boundary
    /// values other parts read; each an expression over `input_names`.
    pub outputs: Vec<(String, Expr)>,
}

/// A partition: its parts, or the parts that depend on each other in a
/// cycle (the first repeated at the end).
#[derive(Debug)]
pub enum Partitioned {
    Parts(Vec<Part>),
    Cycle(Vec<usize>),
}

/// `outputs` (named expressions) cut into parts; `part_of[i]` is the part
/// key of the `i`-th operator node of [`operator_nodes`]`(outputs)`.
pub fn partition(outputs: &[(String, Expr)], part_of: &[u64]) -> Result<Partitioned> {
    let nodes = operator_nodes(outputs);
    if nodes.len() != part_of.len() {
        return Err(Error::internal(format!("partition: {} parts for {} operator nodes", part_of.len(), nodes.len())));
    }
    // Parts numbered by first appearance.
    let mut pid_of_key: HashMap<u64, usize> = HashMap::new();
    let mut part: HashMap<u128, usize> = HashMap::with_capacity(nodes.len());
    let mut position: HashMap<u128, usize> = HashMap::with_capacity(nodes.len());
    for (i, (node, key)) in nodes.iter().zip(part_of).enumerate() {
        let next = pid_of_key.len();
        let pid = *pid_of_key.entry(*key).or_insert(next);
        part.insert(node.fingerprint(), pid);
        position.insert(node.fingerprint(), i);
    }
    let n_parts = pid_of_key.len();
    // Values read across a boundary, and the parts that read them.
    let mut crossing: BTreeSet<usize> = BTreeSet::new();
    let mut needs: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n_parts];
    for node in &nodes {
        let pid = part[&node.fingerprint()];
        for child in node.children() {
            if let Some(&q) = part.get(&child.fingerprint()) {
                if q != pid {
                    crossing.insert(position[&child.fingerprint()]);
                    needs[pid].insert(q);
                }
            }
        }
    }
    // An output computed by no operator (an input, a literal) belongs to
    // part 0 (or a part of its own when there is none).
    if let Err(cycle) = check_acyclic(&needs) {
        return Ok(Partitioned::Cycle(cycle));
    }
    let boundary_name = |i: usize| format!("{BOUNDARY_PREFIX}{i}");
    // Each part's expressions: operator nodes of other parts become inputs.
    let mut parts: Vec<Part> = (0..n_parts.max(1))
        .map(|pid| Part { pid, needed_pids: needs.get(pid).cloned().unwrap_or_default(), input_names: BTreeSet::new(), outputs: Vec::new() })
        .collect();
    let cut = |pid: usize, e: &Expr| -> Result<Expr> {
        crate::transform::transform(e, &mut |original: &Expr, node: Expr| -> Result<Expr> {
            Ok(match part.get(&original.fingerprint()) {
                Some(&q) if q != pid && original.fingerprint() != e.fingerprint() => Expr::input(&boundary_name(position[&original.fingerprint()])),
                _ => node,
            })
        })
    };
    for &i in &crossing {
        let node = &nodes[i];
        let pid = part[&node.fingerprint()];
        parts[pid].outputs.push((boundary_name(i), cut(pid, node)?));
    }
    for (name, e) in outputs {
        let pid = part.get(&e.fingerprint()).copied().unwrap_or(0);
        parts[pid].outputs.push((name.clone(), cut(pid, e)?));
    }
    for p in &mut parts {
        for (_, e) in &p.outputs {
            p.input_names.extend(e.input_names());
        }
    }
    Ok(Partitioned::Parts(parts))
}

/// The operator nodes of `outputs`, each once, children first (the order
/// `part_of` follows).
pub fn operator_nodes(outputs: &[(String, Expr)]) -> Vec<Expr> {
    let mut seen = std::collections::HashSet::new();
    let mut nodes = Vec::new();
    for (_, e) in outputs {
        for node in e.post_order() {
            if matches!(node.kind(), NodeKind::Op { .. }) && seen.insert(node.fingerprint()) {
                nodes.push(node);
            }
        }
    }
    nodes
}

/// The parts of a cycle when the parts' dependencies make one (iterative
/// depth-first search).
fn check_acyclic(needs: &[BTreeSet<usize>]) -> std::result::Result<(), Vec<usize>> {
    // 0: unvisited, 1: on the stack, 2: done.
    let mut state = vec![0u8; needs.len()];
    for start in 0..needs.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(start, needs[start].iter().copied().collect())];
        state[start] = 1;
        while let Some((p, pending)) = stack.last_mut() {
            match pending.pop() {
                Some(q) if state[q] == 1 => {
                    let mut cycle: Vec<usize> = stack.iter().map(|(p, _)| *p).skip_while(|&p| p != q).collect();
                    cycle.push(q);
                    return Err(cycle);
                }
                Some(q) if state[q] == 0 => {
                    state[q] = 1;
                    let next = needs[q].iter().copied().collect();
                    stack.push((q, next));
                }
                Some(_) => {}
                None => {
                    state[*p] = 2;
                    stack.pop();
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracing::int32;

    fn op(name: &str, args: Vec<Expr>) -> Expr {
        Expr::op(name, args.into_iter().map(Some).collect()).unwrap()
    }

    #[test]
    fn a_b_c_with_a_and_c_together_is_a_cycle() {
        // A = x + 1, B = A * 2, C = A + B; A and C in part 0, B in part 1.
        let a = op("kd.math.add", vec![Expr::input("x"), int32(1)]);
        let b = op("kd.math.multiply", vec![a.clone(), int32(2)]);
        let c = op("kd.math.add", vec![a.clone(), b.clone()]);
        let outputs = vec![("c".to_string(), c.clone())];
        let nodes = operator_nodes(&outputs);
        let keys: Vec<u64> = nodes.iter().map(|n| if n.fingerprint() == b.fingerprint() { 1 } else { 0 }).collect();
        assert!(matches!(partition(&outputs, &keys).unwrap(), Partitioned::Cycle(c) if c == vec![0, 1, 0]));
        // B with C instead: two parts in order.
        let keys: Vec<u64> = nodes.iter().map(|n| if n.fingerprint() == a.fingerprint() { 0 } else { 1 }).collect();
        let Partitioned::Parts(parts) = partition(&outputs, &keys).unwrap() else { panic!("no cycle") };
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[1].needed_pids.iter().copied().collect::<Vec<_>>(), vec![0]);
        assert_eq!(parts[0].outputs[0].0, "_pd_part_ph0");
        assert!(parts[1].input_names.contains("_pd_part_ph0"));
    }
}
