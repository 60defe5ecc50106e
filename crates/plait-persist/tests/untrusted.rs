//! Loading untrusted bytes: every truncation and thousands of random
//! mutations of valid files (and of their payloads, behind a recomputed
//! checksum, so the decoder itself sees them) give an error or a value —
//! never a panic.

use plait_core::column::SliceBuilder;
use plait_core::{DataBag, DataSlice, JaggedShape, ScalarRef, Schema};
use plait_expr::tracing::{int32, trace};
use plait_expr::{Expr, ExprValue, NodeKind};
use plait_ops::registry::Value;
use plait_persist::{Compression, MAGIC, Saved, dumps_with, loads};

fn strings() -> DataSlice {
    let mut b = SliceBuilder::new();
    for v in [Some("a"), None, Some("héllo"), Some("")] {
        b.push(v.map(ScalarRef::String));
    }
    b.push(Some(ScalarRef::Int32(7)));
    DataSlice::new(JaggedShape::flat(5), b.finish(), Schema::Object).unwrap()
}

/// Files of a few values, uncompressed and compressed each way, with the
/// compression they were written with.
fn samples() -> Vec<(Compression, Vec<u8>)> {
    let functor = trace("f", &["a", "b"], |p| Ok((&p[0] + &p[1]) * int32(2))).unwrap();
    let expr = Expr::op("kd.math.add", vec![Some(Expr::input("x")), Some(int32(1))]).unwrap();
    let values = [Saved::Slice(strings()), Saved::Slice(functor), Saved::Expr(expr), Saved::Expr(bag_literals())];
    let mut files = Vec::new();
    for compression in [Compression::None, Compression::Zstd, Compression::Lz4] {
        // The compressed variants of the first two (mutating a compressed
        // payload mostly exercises the decompressor).
        let n = if compression == Compression::None { values.len() } else { 2 };
        files.extend(values[..n].iter().map(|v| (compression, dumps_with(v, compression).unwrap())));
    }
    files
}

/// `kd.with_bag(kd.with_bag(I.x, bag), bag)` with a null bag and a shape
/// between, subsliced by `1:` and `...`: the literals that are not slices.
fn bag_literals() -> Expr {
    let bag = Expr::literal(ExprValue::Data(Value::Bag(Some(DataBag::new_immutable()))));
    let null = Expr::literal(ExprValue::Data(Value::Bag(None)));
    let inner = Expr::op("kd.core.with_bag", vec![Some(Expr::input("x")), Some(bag.clone())]).unwrap();
    let shaped = Expr::op("kd.shapes.reshape", vec![Some(inner), Some(Expr::literal(ExprValue::Data(Value::Shape(JaggedShape::flat(2)))))]).unwrap();
    let nulled = Expr::op("kd.core.with_bag", vec![Some(shaped), Some(null)]).unwrap();
    let rebagged = Expr::op("kd.core.with_bag", vec![Some(nulled), Some(bag)]).unwrap();
    // `.S[1:, ...]`: the keys of `kd.subslice` as literals.
    let start = DataSlice::item(Some(ScalarRef::Int32(1)), Schema::Int32).unwrap();
    let range = Expr::literal(ExprValue::Data(Value::Range { start: Some(Box::new(start)), stop: None, step: None }));
    let subslice = plait_expr::operator::lookup("kd.slices.subslice").unwrap();
    Expr::call(&subslice, vec![rebagged, range, Expr::literal(ExprValue::Data(Value::Ellipsis))], vec![]).unwrap()
}

/// The bag literals of `e`, in post order.
fn bags_in(e: &Expr) -> Vec<Option<u64>> {
    e.post_order()
        .iter()
        .filter_map(|n| match n.kind() {
            NodeKind::Literal(ExprValue::Data(Value::Bag(b))) => Some(b.as_ref().map(DataBag::id)),
            _ => None,
        })
        .collect()
}

#[test]
fn bag_literals_round_trip_as_one_bag() {
    let Saved::Expr(loaded) = loads(&dumps_with(&Saved::Expr(bag_literals()), Compression::None).unwrap()).unwrap() else { panic!("an expression") };
    let bags = bags_in(&loaded);
    // The expression's one bag literal node, and the null bag.
    assert_eq!(bags.len(), 2);
    assert!(bags.contains(&None) && bags.iter().flatten().count() == 1);
}

/// A file around `payload`, with a correct checksum.
fn reframe(original: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut out = original[..MAGIC.len() + 6].to_vec();
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out
}

fn payload(file: &[u8]) -> &[u8] {
    &file[MAGIC.len() + 14..file.len() - 4]
}

fn load_without_panic(bytes: &[u8]) {
    let result = std::panic::catch_unwind(|| {
        let _ = loads(bytes);
    });
    assert!(result.is_ok(), "loads panicked on {bytes:?}");
}

#[test]
fn round_trips() {
    for (compression, file) in samples() {
        let value = loads(&file).unwrap();
        assert_eq!(dumps_with(&value, compression).unwrap().len(), file.len());
    }
}

#[test]
fn every_truncation_is_an_error() {
    for (_, file) in samples() {
        for n in 0..file.len() {
            assert!(loads(&file[..n]).is_err());
        }
    }
}

#[test]
fn mutations_never_panic() {
    let mut state: u64 = 0x9e3779b97f4a7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (compression, file) in samples() {
        let body = payload(&file).to_vec();
        for _ in 0..if compression == Compression::None { 3000 } else { 1000 } {
            let mut mutated = body.clone();
            for _ in 0..(1 + next() % 4) {
                let i = (next() as usize) % mutated.len();
                match next() % 3 {
                    0 => mutated[i] ^= 1 << (next() % 8),
                    1 => mutated[i] = 0xff,
                    _ => mutated[i] = 0,
                }
            }
            load_without_panic(&reframe(&file, &mutated));
            // Behind the original header and checksum: caught as corrupt.
            let mut raw = file.clone();
            raw[MAGIC.len() + 14..file.len() - 4].copy_from_slice(&mutated);
            if mutated != body {
                assert!(loads(&raw).is_err());
            }
        }
    }
}

#[test]
fn hostile_headers() {
    let file = &samples()[0].1;
    let mut wrong_version = file.clone();
    wrong_version[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&99u32.to_le_bytes());
    assert!(loads(&wrong_version).unwrap_err().message.contains("unsupported format version 99"));
    assert!(loads(b"not a plait file at all").unwrap_err().message.contains("wrong magic"));
    // A payload declaring a huge column is refused before allocating.
    let mut huge = Vec::new();
    huge.extend_from_slice(&1u32.to_le_bytes()); // rank 1
    huge.push(0); // uniform
    huge.extend_from_slice(&1u64.to_le_bytes());
    huge.extend_from_slice(&(1u64 << 39).to_le_bytes());
    huge.push(1); // INT32
    huge.extend_from_slice(&(1u64 << 39).to_le_bytes()); // items
    huge.push(1);
    huge.push(1); // INT32 column
    huge.extend_from_slice(&(1u64 << 39).to_le_bytes());
    let err = loads(&reframe(file, &huge)).unwrap_err();
    assert!(err.message.contains("does not fit"), "{}", err.message);
}
