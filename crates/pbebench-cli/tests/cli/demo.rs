//! `pbebench demo` end to end (small and with short limits, so that it runs in debug
//! builds too): the plain set and its vetted counterpart, each audited and reported.

use std::process::Command;

#[test]
fn the_demo_writes_every_artefact_and_says_where_to_look() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    let o = Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .args([
            "demo",
            "--size",
            "16",
            "--seed",
            "3",
            "--time-limit",
            "0.3",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    );
    assert!(o.status.success(), "{stderr}");
    for step in ["[1/6]", "[2/6]", "[3/6]", "[4/6]", "[5/6]", "[6/6]"] {
        assert!(stderr.contains(step), "progress {step} missing: {stderr}");
    }
    assert!(stdout.contains("Open the reports: file://"), "{stdout}");
    // The closing table: Pass@1 and Recovered@1 with intervals for both sets, and the
    // plain set's failing audit said as the expected result it is.
    assert!(
        stdout.contains("Pass@1 [95% CI]") && stdout.contains("Recovered@1 [95% CI]"),
        "{stdout}"
    );
    let heading = |set: &str| {
        stdout
            .lines()
            .any(|l| l.starts_with(set) && l.trim_end().ends_with(" instances)"))
    };
    assert!(
        heading("plain Lite ") && heading("vetted Lite "),
        "{stdout}"
    );
    assert!(stdout.contains("(16 instances)"), "{stdout}");
    assert!(
        stdout.contains("plain Lite: audit FAILS (")
            && stdout.contains(") — expected: this is why pbebench vets"),
        "{stdout}"
    );
    let plain: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("audit.json")).unwrap()).unwrap();
    assert_eq!(plain["passed"], false);
    let failed: Vec<&str> = plain["verdict"]["gates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["passed"] == false)
        .map(|g| g["gate"].as_str().unwrap())
        .collect();
    assert!(failed.contains(&"ambiguous"), "{failed:?}");
    // Vetting removes the ambiguity the plain set's audit finds.
    let vetted: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("vetted/audit.json")).unwrap()).unwrap();
    let ambiguous = |a: &serde_json::Value| {
        a["verdict"]["gates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["gate"] == "ambiguous")
            .unwrap()["value"]
            .as_f64()
            .unwrap()
    };
    assert!(ambiguous(&vetted) < ambiguous(&plain), "{vetted}");
    for file in [
        "dataset.jsonl",
        "audit.json",
        "audit.txt",
        "generation/patience-0.json",
        "generation/patience-100000.json",
        "runs/beam/responses.jsonl",
        "runs/beam/results.json",
        "runs/beam/per-instance.jsonl",
        "runs/memoriser/per-instance.jsonl",
        "report/index.html",
        "report/survival.svg",
        "vetted/dataset.jsonl",
        "vetted/audit.json",
        "vetted/runs/beam/per-instance.jsonl",
        "vetted/report/index.html",
    ] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    // The report shows derivations (issue 24): the gold's and an answer's, side by side;
    // the beam solver's first pick fits its examples without being the gold.
    let page = std::fs::read_to_string(out.join("report/index.html")).unwrap();
    assert!(page.contains("<h2>Derivations</h2>"), "no derivations");
    assert!(
        page.contains("<table class=\"derivation\">"),
        "no derivation table"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report/report.json")).unwrap()).unwrap();
    let shown = json["derivations"].as_array().unwrap();
    assert!(!shown.is_empty() && shown.len() <= 3, "{shown:?}");
    // The runs are ordinary score outputs: `pbebench report` reads them back.
    let o = Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .arg("report")
        .arg("--results")
        .arg(out.join("runs/beam"))
        .arg("--dataset")
        .arg(out.join("dataset.jsonl"))
        .arg("--out")
        .arg(dir.path().join("again"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn impossible_parameters_are_rejected() {
    for args in [vec!["--size", "3"], vec!["--time-limit=-1"]] {
        let o = Command::new(env!("CARGO_BIN_EXE_pbebench"))
            .arg("demo")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.starts_with("error: ") && err.contains("--"), "{err}");
    }
}

/// What a refused demo says matches its help, and a refused demo leaves no folder behind.
#[test]
fn refused_parameters_say_what_is_accepted_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    for (args, said) in [
        (
            vec!["--size", "17"],
            "error: --size must be a multiple of 16 (the Lite set balances 16 categories) from 16 to 2000, not 17; try 16 or 32\n",
        ),
        (
            vec!["--time-limit", "0"],
            "error: invalid value '0' for '--time-limit <SECONDS>': '0' is not a number of seconds above 0 and at most 60\n\nFor more information, try '--help'.\n",
        ),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_pbebench"))
            .arg("demo")
            .args(&args)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(String::from_utf8(o.stderr).unwrap(), said);
        assert!(!out.exists(), "{args:?} left {}", out.display());
    }
}
