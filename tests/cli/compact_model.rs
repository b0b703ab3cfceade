//! `clawtop compact KEY` with a model: preview, --yes, the edited-preview loop, refusals and
//! failures, on a copy of host-a whose provider points at the fake model server.

use crate::support::cli::{self, Home, fixture, snapshot};
use crate::support::fake_model::{FakeModel, Reply};

#[tokio::test(flavor = "multi_thread")]
async fn preview_writes_nothing_and_yes_commits_it() {
    let h = Home::host_a();
    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());
    let before = snapshot(h.path());
    // Four calls: since clawtop also summarizes the 25 messages host-a's last compaction kept
    // (SPEC §6.1), the history no longer fits one call: two chunks and their merge, then the
    // split turn's prefix.
    for _ in 0..4 {
        fake.push(Reply::text("## Goal\nFinish the deployment plan review"));
    }
    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--instructions",
            "Keep PR #4411",
            "--json",
        ],
    )
    .await;
    o.expect(0);
    let v = o.json();
    assert_eq!(v["committed"], false);
    assert_eq!(v["provider"], "fake");
    assert_eq!(v["model"], "fake-model");
    assert!(
        v["summary"]
            .as_str()
            .unwrap()
            .starts_with("## Goal\nFinish the deployment plan review")
    );
    assert!(v["tokensAfter"].as_u64().unwrap() > 0);
    let after: Vec<_> = snapshot(h.path())
        .into_iter()
        .filter(|(p, _)| !p.to_string_lossy().contains(".xdg-state"))
        .collect();
    let before: Vec<_> = before.into_iter().collect();
    assert_eq!(after, before, "a preview must not write anything");
    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    let users: Vec<String> = requests
        .iter()
        .map(|r| {
            r.body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["role"] == "user")
                .unwrap()["content"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        users
            .iter()
            .any(|u| u.contains("Additional focus: Keep PR #4411"))
    );
    assert!(
        users
            .iter()
            .any(|u| u.contains("<previous-summary>\nFAKE-SUMMARY 16")),
        "host-a has a previous compaction"
    );
    let req = &requests[0];
    assert!(
        !format!("{:?}", req.headers).contains("fake-key") || req.header("authorization").is_some()
    );

    for _ in 0..4 {
        fake.push(Reply::text("## Goal\nFinish the deployment plan review"));
    }
    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--yes",
            "--json",
        ],
    )
    .await;
    o.expect(0);
    let v = o.json();
    assert_eq!(v["committed"], true);
    assert_eq!(v["entryId"].as_str().map(str::len), Some(8));
    let store: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(h.store()).unwrap()).unwrap();
    assert_eq!(store["agent:main:main"]["compactionCount"], 13);
    assert_eq!(store["agent:main:main"]["totalTokens"], v["tokensAfter"]);
    let last = std::fs::read_to_string(h.transcript())
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string();
    let entry: serde_json::Value = serde_json::from_str(&last).unwrap();
    assert_eq!(entry["summary"], v["summary"]);
    assert_eq!(entry["id"], v["entryId"]);
    // The list shows the new figures.
    let l = cli::run_async(&h, &["list", "--json"]).await;
    assert_eq!(l.json()["sessions"][0]["compactionCount"], 13);
}

#[tokio::test(flavor = "multi_thread")]
async fn edited_preview_is_committed_exactly_and_refused_when_moved() {
    let h = Home::host_a();
    let dry = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--dry-run",
            "--json",
            "--keep-recent-tokens",
            "2000",
        ],
    )
    .await;
    dry.expect(0);
    let leaf = dry.json()["leafId"].as_str().unwrap().to_string();
    let edited =
        "## Goal\nEdited by the operator: keep PR #4411 and the blue/green note.\n\u{1F680} done";
    let f = h.path().join("summary.md");
    std::fs::write(&f, edited).unwrap();

    // A wrong leaf (the transcript moved since the preview) is refused and writes nothing.
    let before = std::fs::read(h.transcript()).unwrap();
    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--summary-file",
            f.to_str().unwrap(),
            "--expect-leaf",
            "deadbeef",
            "--yes",
        ],
    )
    .await;
    o.expect(3);
    assert!(
        o.stderr.contains("transcript changed since preview"),
        "{}",
        o.stderr
    );
    assert_eq!(std::fs::read(h.transcript()).unwrap(), before);

    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--summary-file",
            f.to_str().unwrap(),
            "--expect-leaf",
            &leaf,
            "--yes",
            "--json",
        ],
    )
    .await;
    o.expect(0);
    let last = std::fs::read_to_string(h.transcript())
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string();
    let entry: serde_json::Value = serde_json::from_str(&last).unwrap();
    assert_eq!(
        entry["summary"].as_str().unwrap(),
        edited,
        "the committed text is exactly the edited preview"
    );
    assert_eq!(entry["parentId"].as_str().unwrap(), leaf);
    assert_eq!(entry["firstKeptEntryId"], dry.json()["firstKeptEntryId"]);

    // Committing the same preview again: the leaf is now the compaction, so it is refused.
    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--summary-file",
            f.to_str().unwrap(),
            "--expect-leaf",
            &leaf,
            "--yes",
        ],
    )
    .await;
    assert_eq!(o.code, 1, "already compacted: {}", o.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn model_failure_writes_nothing() {
    let h = Home::host_a();
    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());
    for _ in 0..6 {
        fake.push(Reply::status(500, "upstream exploded"));
    }
    let before = snapshot(&h.state());
    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--keep-recent-tokens",
            "2000",
            "--yes",
        ],
    )
    .await;
    o.expect(1);
    assert!(o.stderr.contains("nothing written"), "{}", o.stderr);
    assert!(o.stderr.contains("500"), "{}", o.stderr);
    assert_eq!(snapshot(&h.state()), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn bare_v1_file_with_flags() {
    let h = Home::empty();
    let f = h.path().join("large-session.jsonl");
    std::fs::copy(cli::fixture("pi/large-session.jsonl"), &f).unwrap();
    let fake = FakeModel::start().await;
    for _ in 0..4 {
        fake.push(Reply::text("## Goal\nsummary"));
    }
    let base = format!("{}/v1", fake.base_url());
    let o = cli::run_async(
        &h,
        &[
            "compact",
            f.to_str().unwrap(),
            "--provider",
            "local",
            "--model",
            "m1",
            "--base-url",
            &base,
            "--api",
            "openai-completions",
            "--yes",
            "--json",
        ],
    )
    .await;
    o.expect(0);
    let v = o.json();
    assert_eq!(v["committed"], true);
    assert!(v["entryId"].is_null(), "v1 ids are pi's to assign");
    let last = std::fs::read_to_string(&f)
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string();
    let entry: serde_json::Value = serde_json::from_str(&last).unwrap();
    assert_eq!(
        entry["firstKeptEntryIndex"], 838,
        "legacy index counts the header"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edited_summary_is_refused_when_the_cut_moved() {
    let h = Home::host_a();
    let dry = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--dry-run",
            "--json",
            "--keep-recent-tokens",
            "2000",
        ],
    )
    .await;
    dry.expect(0);
    let v = dry.json();
    let (leaf, kept) = (
        v["leafId"].as_str().unwrap().to_string(),
        v["firstKeptEntryId"].as_str().unwrap().to_string(),
    );
    let f = h.path().join("summary.md");
    std::fs::write(&f, "## Goal\nedited\n").unwrap();
    let before = std::fs::read(h.transcript()).unwrap();
    // Same leaf, but another keepRecentTokens moves the cut: the summary no longer fits it.
    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--summary-file",
            f.to_str().unwrap(),
            "--expect-leaf",
            &leaf,
            "--expect-first-kept",
            &kept,
            "--keep-recent-tokens",
            "3000",
            "--yes",
        ],
    )
    .await;
    o.expect(3);
    assert!(o.stderr.contains("cut moved"), "{}", o.stderr);
    assert_eq!(std::fs::read(h.transcript()).unwrap(), before);
    // --expect-leaf only makes sense with --summary-file.
    cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--expect-leaf",
            &leaf,
            "--yes",
        ],
    )
    .await
    .expect(2);
    // The matching cut commits; the file's trailing newline is not part of the summary.
    let o = cli::run_async(
        &h,
        &[
            "compact",
            "agent:main:main",
            "--no-flush",
            "--summary-file",
            f.to_str().unwrap(),
            "--expect-leaf",
            &leaf,
            "--expect-first-kept",
            &kept,
            "--keep-recent-tokens",
            "2000",
            "--yes",
            "--json",
        ],
    )
    .await;
    o.expect(0);
    let last = std::fs::read_to_string(h.transcript())
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string();
    let entry: serde_json::Value = serde_json::from_str(&last).unwrap();
    assert_eq!(entry["summary"], "## Goal\nedited");
}

/// The preview's audit (SPEC §6a): what the draft loses of the span it replaces, the previous
/// summary included, in `compact --json` (key `audit`) and under the text preview.
#[tokio::test(flavor = "multi_thread")]
async fn preview_audits_what_the_draft_loses() {
    let h = Home::host_a();
    std::fs::copy(
        fixture(crate::support::fixtures::AUDIT_PLANTED),
        h.transcript(),
    )
    .unwrap();
    let fake = FakeModel::start().await;
    cli::point_fake_provider(&h, &fake.base_url());
    fake.push(Reply::text("## Goal\nShip https://staging.acme.dev/app"));
    let args = [
        "compact",
        "agent:main:main",
        "--no-flush",
        "--keep-recent-tokens",
        "1",
    ];
    let o = cli::run_async(&h, &[&args[..], &["--json"]].concat()).await;
    o.expect(0);
    let v = o.json();
    let a = &v["audit"];
    assert_eq!(a["span"]["previousSummaryEntryId"], "c0000002");
    assert_eq!(a["droppedUnsummarized"]["messages"], 0, "{a}");
    let lost: Vec<&str> = a["identifiers"]["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["value"].as_str().unwrap())
        .collect();
    assert_eq!(
        lost,
        ["build-778899", "https://github.com/acme/api/pull/4711"],
        "{a}"
    );
    assert_eq!(
        a["identifiers"]["kept"][0]["value"],
        "https://staging.acme.dev/app"
    );
    fake.push(Reply::text("## Goal\nShip https://staging.acme.dev/app"));
    let o = cli::run_async(&h, &args).await;
    o.expect(0);
    assert!(
        o.stderr.contains(
            "Audit: this summary keeps 1 of 3 identifiers in the span it replaces, would lose 2: build-778899, https://github.com/acme/api/pull/4711"
        ),
        "{}",
        o.stderr
    );
}
