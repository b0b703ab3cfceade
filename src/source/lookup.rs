//! Naming a session on the command line: what `show`, `compact`, `flush` and `clawtop KEY`
//! accept, decided once over a [`Listing`] so every source (files, SQLite, a Gateway) gets
//! the same rules.
//!
//! Tried in order, the first rule that matches anything wins:
//! 1. the full session key (`agent:main:telegram:direct:12345`);
//! 2. the key without its `agent:<id>:` prefix (`telegram:direct:12345`, `main`);
//! 3. a sessionId;
//! 4. an unambiguous prefix of a sessionId (like git's short hashes).
//!
//! A rule that matches several sessions stops the search with [`Lookup::Ambiguous`] and the
//! candidates (the caller narrows with `--agent`), rather than falling through to a later
//! rule that would pick one silently.

use super::{Listing, Session};

/// Why a name did not pick exactly one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    NotFound,
    /// Full keys of the sessions the name matched, sorted.
    Ambiguous(Vec<String>),
}

impl Lookup {
    /// Why `name` opens no session, in the one wording `show`, `compact`, `flush`, `audit`,
    /// `history` and `clawtop KEY` use. `host`: the host's label; `sessions`: how many it
    /// lists; `also`: what else was tried (", and no file of that name"); `agent_given`:
    /// `--agent` was given (an ambiguous name then needs the full key).
    pub fn words(
        &self,
        name: &str,
        host: &str,
        sessions: usize,
        also: &str,
        agent_given: bool,
    ) -> String {
        match self {
            Lookup::NotFound => format!(
                "no session with key, key without agent:<id>:, sessionId or sessionId prefix {name:?} in {host} ({sessions} sessions; see `clawtop list`){also}"
            ),
            Lookup::Ambiguous(candidates) => format!(
                "ambiguous: {name:?} matches {}; give the full key{}",
                candidates.join(", "),
                if agent_given { "" } else { " or --agent ID" }
            ),
        }
    }
}

/// The key without its `agent:<id>:` prefix (the key itself when it has none).
pub fn short_key(key: &str) -> &str {
    key.strip_prefix("agent:")
        .and_then(|rest| rest.split_once(':'))
        .map_or(key, |(_, tail)| tail)
}

impl Listing {
    /// The one session `name` designates (see the module doc for the rules).
    pub fn find(&self, name: &str) -> Result<&Session, Lookup> {
        let name = name.trim();
        if name.is_empty() {
            return Err(Lookup::NotFound);
        }
        type Rule = fn(&Session, &str) -> bool;
        let rules: [Rule; 4] = [
            |s, n| s.key() == n,
            |s, n| short_key(s.key()) == n,
            |s, n| s.entry.session_id == n,
            |s, n| s.entry.session_id.starts_with(n),
        ];
        for rule in rules {
            let hits: Vec<&Session> = self.sessions.iter().filter(|s| rule(s, name)).collect();
            match hits.len() {
                0 => continue,
                1 => return Ok(hits[0]),
                _ => {
                    let mut keys: Vec<String> = hits
                        .iter()
                        .map(|s| format!("{} ({})", s.key(), s.entry.session_id))
                        .collect();
                    keys.sort();
                    keys.dedup();
                    return Err(Lookup::Ambiguous(keys));
                }
            }
        }
        Err(Lookup::NotFound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SessionRef;

    fn session(agent: &str, key: &str, id: &str) -> Session {
        let entry = crate::store::StoreEntry {
            session_id: id.into(),
            ..Default::default()
        };
        Session {
            reference: SessionRef {
                source: "t".into(),
                agent_id: agent.into(),
                key: key.into(),
                session_id: id.into(),
            },
            entry,
            transcript: None,
            transcript_how: "",
            transcript_unread: None,
            entry_from: None,
            warnings: Vec::new(),
        }
    }

    fn listing() -> Listing {
        Listing {
            sessions: vec![
                session("main", "agent:main:main", "9e08b9f6-aaaa"),
                session("ops", "agent:ops:main", "f9f4db30-bbbb"),
                session("main", "agent:main:telegram:direct:1", "9e08c000-cccc"),
            ],
            ..Listing::default()
        }
    }

    #[test]
    fn rules_in_order() {
        let l = listing();
        assert_eq!(l.find("agent:ops:main").unwrap().agent_id(), "ops");
        assert_eq!(
            l.find("telegram:direct:1").unwrap().key(),
            "agent:main:telegram:direct:1"
        );
        assert_eq!(l.find("f9f4db30-bbbb").unwrap().key(), "agent:ops:main");
        assert_eq!(l.find("f9f").unwrap().key(), "agent:ops:main");
        assert_eq!(
            l.find("9e08c").unwrap().key(),
            "agent:main:telegram:direct:1"
        );
        assert!(matches!(l.find("nope"), Err(Lookup::NotFound)));
        assert!(matches!(l.find(""), Err(Lookup::NotFound)));
    }

    #[test]
    fn ambiguity_names_candidates() {
        let l = listing();
        match l.find("main") {
            Err(Lookup::Ambiguous(c)) => assert_eq!(
                c,
                vec![
                    "agent:main:main (9e08b9f6-aaaa)".to_string(),
                    "agent:ops:main (f9f4db30-bbbb)".to_string()
                ]
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(l.find("9e08"), Err(Lookup::Ambiguous(c)) if c.len() == 2));
    }

    #[test]
    fn short_keys() {
        assert_eq!(short_key("agent:main:main"), "main");
        assert_eq!(short_key("agent:ops:cron:x"), "cron:x");
        assert_eq!(short_key("global"), "global");
    }
}
