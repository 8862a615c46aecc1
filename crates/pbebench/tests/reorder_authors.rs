//! The authors' reordering file, read and written: a fixture written by Python's
//! `json.dumps` in their format (`testdata/reorder-authors/`) reads as reordering problems
//! and writes back byte for byte; a record that is wrong is an error naming the field.

use pbebench::reorder::{authors_reorder_line, read_reorder_lines, score_order};

fn fixture() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/reorder-authors/records.jsonl"
    );
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn the_authors_file_reads_and_writes_back_byte_for_byte() {
    let text = fixture();
    let problems = read_reorder_lines(&text).unwrap();
    assert_eq!(problems.len(), text.lines().count());
    let mut written = String::new();
    for p in &problems {
        assert!(p.instance.id.starts_with("perm_"), "{}", p.instance.id);
        assert!(score_order(p, &p.order).exact);
        written += &authors_reorder_line(p).unwrap();
        written.push('\n');
    }
    assert_eq!(written, text);
}

fn broken(edit: impl Fn(&mut serde_json::Map<String, serde_json::Value>)) -> String {
    let text = fixture();
    let mut record: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    edit(record.as_object_mut().unwrap());
    let err = read_reorder_lines(&format!("\n{record}")).unwrap_err();
    assert_eq!(err.line, 2);
    err.problem
}

#[test]
fn a_wrong_record_names_its_field() {
    let e = broken(|r| {
        r.insert("permutation".into(), serde_json::json!([0, 0, 1]));
    });
    assert!(e.contains("'permutation'"), "{e}");
    let e = broken(|r| {
        r.insert("ground_truth_order".into(), serde_json::json!([0, 1, 2]));
    });
    assert!(
        e.contains("does not reproduce") || e.contains("original_programs"),
        "{e}"
    );
    let e = broken(|r| {
        r.remove("original_programs");
    });
    assert!(e.contains("'original_programs' is missing"), "{e}");
    let e = broken(|r| {
        r.insert(
            "permuted_programs".into(),
            serde_json::json!(["rep(1)", "a", "b"]),
        );
    });
    assert!(e.contains("'permuted_programs'"), "{e}");
    let e = broken(|r| {
        r.insert("num_valid_solutions".into(), serde_json::json!(-1));
    });
    assert!(e.contains("'num_valid_solutions'"), "{e}");
}
