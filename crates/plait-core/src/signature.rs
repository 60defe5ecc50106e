//! Parameter kinds and how Python writes a parameter list. Operator
//! signatures (plait-ops, plait-expr) and the functor signatures a bag
//! stores (printed by `bag::text`) both use them.

/// How a parameter is passed, as in Python.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    PositionalOnly,
    PositionalOrKeyword,
    VarPositional,
    KeywordOnly,
    VarKeyword,
}

impl ParamKind {
    pub const ALL: [ParamKind; 5] =
        [ParamKind::PositionalOnly, ParamKind::PositionalOrKeyword, ParamKind::VarPositional, ParamKind::KeywordOnly, ParamKind::VarKeyword];

    /// The name a functor signature stores (Koda's); `inspect.Parameter`
    /// spells the same names in capitals.
    pub fn name(self) -> &'static str {
        match self {
            ParamKind::PositionalOnly => "positional_only",
            ParamKind::PositionalOrKeyword => "positional_or_keyword",
            ParamKind::VarPositional => "var_positional",
            ParamKind::KeywordOnly => "keyword_only",
            ParamKind::VarKeyword => "var_keyword",
        }
    }

    /// The kind a functor signature names `name`.
    pub fn from_name(name: &str) -> Option<ParamKind> {
        ParamKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A parameter list as Python writes it (`x, /, y=1, *args, z, **kwargs`)
/// from (name, kind, default as text); `*args` and `**kwargs` never show a
/// default.
pub fn parameter_list<N: AsRef<str>>(params: impl IntoIterator<Item = (N, ParamKind, Option<String>)>) -> String {
    let mut parts = Vec::new();
    let mut star_written = false;
    let mut previous = None;
    for (name, kind, default) in params {
        let name = name.as_ref();
        if previous == Some(ParamKind::PositionalOnly) && kind != ParamKind::PositionalOnly {
            parts.push("/".to_string());
        }
        match kind {
            ParamKind::VarPositional => {
                star_written = true;
                parts.push(format!("*{name}"));
            }
            ParamKind::VarKeyword => parts.push(format!("**{name}")),
            _ => {
                if kind == ParamKind::KeywordOnly && !star_written {
                    parts.push("*".to_string());
                    star_written = true;
                }
                parts.push(match default {
                    Some(d) => format!("{name}={d}"),
                    None => name.to_string(),
                });
            }
        }
        previous = Some(kind);
    }
    if previous == Some(ParamKind::PositionalOnly) {
        parts.push("/".to_string());
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_list_places_slash_and_star_as_python_does() {
        use ParamKind::*;
        let list = |ps: &[(&'static str, ParamKind, Option<&str>)]| parameter_list(ps.iter().map(|(n, k, d)| (*n, *k, d.map(str::to_string))));
        assert_eq!(
            list(&[
                ("x", PositionalOnly, None),
                ("y", PositionalOrKeyword, Some("1")),
                ("args", VarPositional, None),
                ("z", KeywordOnly, None),
                ("kw", VarKeyword, None)
            ]),
            "x, /, y=1, *args, z, **kw"
        );
        assert_eq!(list(&[("a", PositionalOnly, None), ("b", PositionalOnly, Some("2"))]), "a, b=2, /");
        assert_eq!(list(&[("a", PositionalOrKeyword, None), ("k", KeywordOnly, Some("3"))]), "a, *, k=3");
        assert_eq!(list(&[("args", VarPositional, Some("ignored")), ("k", KeywordOnly, None)]), "*args, k");
        assert_eq!(list(&[]), "");
        for k in ParamKind::ALL {
            assert_eq!(ParamKind::from_name(k.name()), Some(k));
        }
        assert_eq!(ParamKind::from_name("POSITIONAL_ONLY"), None);
    }
}
