//! The test side of the commit pause seam (`clawtop::commit` module docs): a child
//! clawtop stops at named steps; the test sees which step was reached, inspects or
//! disturbs the files, then lets it go on. Every wait has a timeout, so a step the child
//! never reaches fails the test instead of hanging it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

pub struct Pause {
    pub fifo: PathBuf,
    go: PathBuf,
}

fn mkfifo(p: &Path) {
    rustix::fs::mkfifoat(rustix::fs::CWD, p, rustix::fs::Mode::from_raw_mode(0o600))
        .unwrap_or_else(|e| panic!("mkfifo {}: {e}", p.display()));
}

fn with_timeout<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("timed out: {what}"))
}

impl Pause {
    pub fn new(dir: &Path) -> Pause {
        let fifo = dir.join("pause.fifo");
        let go = dir.join("pause.fifo.go");
        mkfifo(&fifo);
        mkfifo(&go);
        Pause { fifo, go }
    }

    /// Env for the child: pause at these steps.
    pub fn env(&self, steps: &str) -> Vec<(String, String)> {
        vec![
            ("CLAWTOP_TEST_PAUSE_AT".into(), steps.into()),
            (
                "CLAWTOP_TEST_PAUSE_FIFO".into(),
                self.fifo.to_string_lossy().into_owned(),
            ),
        ]
    }

    /// Wait until the child stops at a step; returns the step's name.
    pub fn reached(&self) -> String {
        let fifo = self.fifo.clone();
        with_timeout("the child never reached a pause step", move || {
            let f = std::fs::File::open(&fifo).unwrap();
            let mut line = String::new();
            BufReader::new(f).read_line(&mut line).unwrap();
            line.trim().to_string()
        })
    }

    /// Let the paused child go on.
    pub fn resume(&self) {
        let go = self.go.clone();
        with_timeout("the child did not wait to be resumed", move || {
            drop(std::fs::OpenOptions::new().write(true).open(&go).unwrap());
        });
    }
}
