//! The logistic regression against statsmodels' `Logit` fits, computed once by
//! fixtures/make_logit_fixture.py and stored in fixtures/logit_statsmodels.json.

use pbebench_vet::fit_logit;
use serde_json::Value;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(got: f64, want: f64, rel: f64, what: &str) {
    let tol = rel * want.abs().max(1e-3);
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, statsmodels {want}"
    );
}

#[test]
fn matches_statsmodels() {
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/logit_statsmodels.json")).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let names: Vec<&str> = case["names"].as_array().unwrap()[1..]
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let rows: Vec<Vec<f64>> = case["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(floats)
            .collect();
        let y: Vec<bool> = case["y"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_bool().unwrap())
            .collect();
        let fit = fit_logit(&names, &rows, &y).unwrap();
        assert!(fit.converged, "{name}");
        assert!(fit.dropped.is_empty(), "{name}");
        assert_eq!(fit.names[0], "const");
        let cols = [("params", &fit.coef), ("bse", &fit.std_err), ("z", &fit.z)];
        for (key, ours) in cols {
            for (k, want) in floats(&case[key]).iter().enumerate() {
                close(
                    ours[k],
                    *want,
                    1e-9,
                    &format!("{name} {key}[{}]", fit.names[k]),
                );
            }
        }
        for (k, want) in floats(&case["p"]).iter().enumerate() {
            // p-values span many orders of magnitude: compare relatively.
            let got = fit.p_value[k];
            assert!(
                (got - want).abs() <= 1e-8 * want.abs() + 1e-300,
                "{name} p[{}]: got {got:e}, statsmodels {want:e}",
                fit.names[k]
            );
        }
        close(
            fit.log_likelihood,
            case["llf"].as_f64().unwrap(),
            1e-9,
            "llf",
        );
        close(
            fit.null_log_likelihood,
            case["llnull"].as_f64().unwrap(),
            1e-9,
            "llnull",
        );
        close(
            fit.pseudo_r2,
            case["prsquared"].as_f64().unwrap(),
            1e-8,
            "prsquared",
        );
    }
}

#[test]
fn the_report_regression_uses_the_same_fit() {
    // The report builds its rows from per-instance scores; check the plumbing on the demo
    // case: rows → InstanceScore-like input → same coefficients.
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/logit_statsmodels.json")).unwrap();
    let case = &fixture["cases"][1];
    let rows: Vec<Vec<f64>> = case["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(floats)
        .collect();
    let y: Vec<bool> = case["y"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_bool().unwrap())
        .collect();
    let scores: Vec<pbebench::InstanceScore> = rows
        .iter()
        .zip(&y)
        .enumerate()
        .map(|(k, (r, pass))| {
            let bits: String = r[1..]
                .iter()
                .map(|v| if *v > 0.5 { '1' } else { '0' })
                .collect();
            serde_json::from_value(serde_json::json!({
                "id": k.to_string(), "cascade_len": r[0] as usize, "category": bits,
                "examples": 5, "missing": false, "degenerate": false, "samples": [],
                "chosen": 0, "pass": pass, "edit_sim": if *pass {1.0} else {0.0},
                "edit_sim_word": 0.0, "score": if *pass {1.0} else {0.0}, "heldout_pass": null,
                "valid_rules": 0, "rules": 0, "cascade": []
            }))
            .unwrap()
        })
        .collect();
    let reg = pbebench_vet::report::regression("demo", &scores);
    let fit = reg.fit.unwrap();
    for (k, want) in floats(&case["params"]).iter().enumerate() {
        close(fit.coef[k], *want, 1e-7, "coef");
    }
}
