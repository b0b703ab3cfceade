//! Ad-hoc timing of open + plan on a file: `cargo run --release --example plan_timing FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("FILE");
    let t0 = std::time::Instant::now();
    let t = clawtop::transcript::Transcript::open(std::path::Path::new(&path)).expect("open");
    let t1 = t0.elapsed();
    let p = clawtop::plan::prepare(&t, 20000);
    let t2 = t0.elapsed();
    println!(
        "entries {} open {:?} plan {:?} ok={}",
        t.len(),
        t1,
        t2,
        p.is_ok()
    );
    if let Ok(p) = p {
        println!(
            "tokensBefore {} mts {} read {} mod {}",
            p.tokens_before,
            p.messages_to_summarize.len(),
            p.read_files.len(),
            p.modified_files.len()
        );
    }
}
