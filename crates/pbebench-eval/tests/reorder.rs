/// An episode interrupted by a failed turn resumes from its stored turns: the turn already
/// answered is not asked again, and the test it made still counts against the budget.
#[test]
fn an_interrupted_episode_resumes_without_asking_a_stored_turn_again() {
    let dir = tempfile::tempdir().unwrap();
    let set = problems(2);
    let dataset = write_set(dir.path(), &set);
    let asked: Arc<Mutex<HashMap<(usize, usize), usize>>> = Arc::default();
    let failing = Arc::new(AtomicBool::new(true));
    let server = {
        let (set, asked, failing) = (set.clone(), Arc::clone(&asked), Arc::clone(&failing));
        MockServer::start(move |req| {
            let (i, turn) = (problem_of(&set, req), req.turn());
            *asked.lock().unwrap().entry((i, turn)).or_default() += 1;
            let reversed: Vec<usize> = set[i].order.iter().rev().copied().collect();
            match turn {
                0 => Reply::tool_calls(
                    None,
                    &[("test_order", &json!({ "order": reversed }).to_string())],
                ),
                _ if failing.load(Ordering::SeqCst) && i == 0 => Reply::error(400, "refused"),
                _ => Reply::tool_calls(
                    None,
                    &[("submit", &json!({"order": set[i].order}).to_string())],
                ),
            }
        })
    };
    let run = dir.path().join("run");
    let config = interactive_config(&dataset, &run, &[server.base_url()]);
    let first = evaluate(&config).unwrap();
    assert_eq!(first.results.answered, 1);
    failing.store(false, Ordering::SeqCst);
    let second = evaluate(&config).unwrap();
    assert!(second.complete());
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked[&(0, 0)], 1, "the stored turn is not asked again");
    assert_eq!(asked[&(0, 1)], 2, "the failed turn is asked again");
    assert_eq!((asked[&(1, 0)], asked[&(1, 1)]), (1, 1));
    let reorder = second.reorder.unwrap();
    assert!(reorder.instances.iter().all(|s| s.samples[0].score.exact));
    assert_eq!(reorder.episodes.unwrap().mean_tests, 1.0);
}
