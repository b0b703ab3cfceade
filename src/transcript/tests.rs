use super::*;

fn t(s: &str) -> Transcript {
    Transcript::from_bytes("mem.jsonl", s.as_bytes().to_vec())
}

#[test]
fn empty_file_is_a_warning_not_an_error() {
    let tr = t("");
    assert!(tr.is_empty());
    assert_eq!(tr.warnings[0].message, "empty file");
}
