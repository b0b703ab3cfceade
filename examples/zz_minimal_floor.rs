// scratch: not committed
use serde::Deserialize;
use serde_json::value::RawValue;
#[derive(Deserialize)]
#[allow(dead_code)]
struct Msg<'a> {
    #[serde(borrow)]
    role: Option<&'a str>,
    #[serde(borrow)]
    usage: Option<&'a RawValue>,
    #[serde(borrow)]
    model: Option<std::borrow::Cow<'a, str>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct Head<'a> {
    #[serde(rename = "type", borrow)]
    ty: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "parentId", borrow)]
    parent: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<Msg<'a>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct Entry<'a> {
    #[serde(rename = "sessionId", borrow)]
    sid: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "totalTokens")]
    tt: Option<serde_json::Number>,
    #[serde(borrow)]
    model: Option<std::borrow::Cow<'a, str>>,
}
fn cpu() -> f64 {
    let mut r = std::mem::MaybeUninit::<()>::uninit();
    let _ = &mut r;
    let t = std::fs::read_to_string("/proc/self/stat").unwrap();
    let f: Vec<&str> = t.split_whitespace().collect();
    (f[13].parse::<f64>().unwrap() + f[14].parse::<f64>().unwrap()) / 100.0
}
fn main() {
    let parse_rows = std::env::args().any(|a| a == "--parse");
    let parse_entries = std::env::args().any(|a| a == "--entries");
    let dbs: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let t0 = cpu();
    let (mut rows, mut bytes, mut heads, mut sessions) = (0u64, 0u64, 0u64, 0u64);
    let mut dec = zstd::bulk::Decompressor::new().unwrap();
    for db in dbs {
        let c =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap();
        let mut ids = Vec::new();
        {
            let mut st = c
                .prepare("SELECT current_session_id, entry_json FROM session_nodes")
                .unwrap();
            let mut q = st.query([]).unwrap();
            while let Some(r) = q.next().unwrap() {
                ids.push(r.get::<_, String>(0).unwrap());
                if parse_entries {
                    if let rusqlite::types::ValueRef::Text(t) = r.get_ref(1).unwrap() {
                        if serde_json::from_slice::<Entry>(t).is_ok() {
                            heads += 1;
                        }
                    }
                }
            }
        }
        let mut st = c.prepare("SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ?1 ORDER BY seq").unwrap();
        for sid in ids {
            sessions += 1;
            let mut q = st.query([&sid]).unwrap();
            while let Some(r) = q.next().unwrap() {
                rows += 1;
                let owned;
                let b: &[u8] = match (r.get_ref(0).unwrap(), r.get_ref(1).unwrap()) {
                    (_, rusqlite::types::ValueRef::Blob(z)) => {
                        let cap = zstd::zstd_safe::get_frame_content_size(z)
                            .ok()
                            .flatten()
                            .unwrap_or(1 << 20) as usize;
                        owned = dec.decompress(z, cap).unwrap();
                        &owned
                    }
                    (rusqlite::types::ValueRef::Text(t), _) => t,
                    _ => continue,
                };
                bytes += b.len() as u64;
                if parse_rows && serde_json::from_slice::<Head>(b).is_ok() {
                    heads += 1;
                }
            }
        }
        let _ = &mut dec;
    }
    eprintln!(
        "{sessions} sessions {rows} rows {bytes} bytes {heads} parsed {:.3} s cpu",
        cpu() - t0
    );
}
