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

#[test]
fn built_from_entries_links_like_a_file() {
    let header = r#"{"type":"session","version":3,"id":"s1"}"#;
    let a =
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}"#;
    // Pretty-printed JSON (a raw line break) still makes one entry.
    let b = "{\"type\":\"message\",\n \"id\":\"b\",\"parentId\":\"a\",\"message\":{\"role\":\"assistant\",\"content\":[]}}";
    let tr = Transcript::from_entries("db#s1", [header, a, b]);
    assert_eq!(tr.len(), 2);
    assert_eq!(tr.version, 3);
    assert_eq!(tr.entries[1].parent, Some(0));
    assert_eq!(tr.active_branch(), vec![0, 1]);
    assert_eq!(tr.entry_json(1).unwrap()["id"], "b");
    assert!(tr.warnings.is_empty(), "{:?}", tr.warnings);
    assert_eq!(tr.path().to_string_lossy(), "db#s1");
}
