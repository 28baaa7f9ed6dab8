//! Closed sets of words a user or an agent picks from (`--mode lexical`, `"min_tier": "high"`):
//! each is an enum whose names live here once, so the CLI's parser (`cli.rs`), the MCP schemas
//! (`schemars`, from serde's names) and the text that prints them agree without the library
//! knowing either front-end.

/// An enum of named values.
pub trait Named: Copy + Sized + 'static {
    /// Every value, in the order help lists them.
    const ALL: &'static [Self];
    /// The value's name, as typed and as serialized.
    fn name(self) -> &'static str;

    /// The value of a name (exact: names are lower case).
    fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.name() == s)
    }

    /// Every name, in order.
    fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|v| v.name()).collect()
    }
}

/// Implements [`Named`] for an enum whose serde names are its lower-case variant names.
#[macro_export]
macro_rules! named {
    ($t:ty { $($v:ident => $n:literal),+ $(,)? }) => {
        impl $crate::named::Named for $t {
            const ALL: &'static [Self] = &[$(<$t>::$v),+];
            fn name(self) -> &'static str {
                match self { $(<$t>::$v => $n),+ }
            }
        }

        // `value.name()` without importing the trait.
        impl $t {
            pub fn name(self) -> &'static str {
                <Self as $crate::named::Named>::name(self)
            }
        }
    };
}
