//! Hostile-repository cases: fs. (Filled in by the fs part of issue 20.)
use super::*;

#[test]
fn harness_sees_a_change_outside() {
    let h = Hostile::new();
    h.expect(&["status"], 0);
    std::fs::write(h.out("precious"), "changed").unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.assert_outside_unchanged()));
    assert!(caught.is_err(), "the harness must notice a file changed outside the repository");
}
