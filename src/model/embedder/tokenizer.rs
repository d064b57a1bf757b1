//! Which tokenizer a call runs with: one reduced to the call's texts (tens of ms) until the
//! process embeds enough to pay for the full 250k-piece one (about a second, built on a spare
//! thread), and how either is configured. Apart so that this switching reads in one place.

use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;

use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer};

use super::super::fasttok::VocabIndex;
use super::super::{ModelError, convert};
use super::runner::{Runner, read};
use super::{Embedder, Role, State};

/// After this many texts through per-call reduced tokenizers, build the full one at once.
const REDUCED_BUDGET: usize = 512;

/// Padding as fastembed configures it (pad to the longest in the batch); truncation to
/// `max_tokens` (the model's window, 512, is part of the tokenizer itself; a smaller
/// [`EmbedderOptions::max_tokens`] cuts further).
pub(super) fn configure(mut tok: Tokenizer, max_tokens: usize) -> Tokenizer {
    let pad_id = tok.token_to_id("<pad>").unwrap_or(1);
    tok.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        pad_id,
        pad_token: "<pad>".into(),
        ..Default::default()
    }));
    if max_tokens < convert::MAX_LENGTH {
        let _ = tok.with_truncation(Some(tokenizers::TruncationParams {
            max_length: max_tokens.max(2),
            ..Default::default()
        }));
    }
    tok
}

pub(super) fn full_tokenizer(
    index: &VocabIndex,
    max_tokens: usize,
) -> Result<Tokenizer, ModelError> {
    Ok(configure(index.full()?, max_tokens))
}

/// Load `tokenizer.json` (used by tests to check the fast path against it).
pub fn load_tokenizer_json(path: &Path) -> Result<Tokenizer, ModelError> {
    let bytes = read(path)?;
    Tokenizer::from_bytes(&bytes)
        .map_err(|e| ModelError::Tokenizer(format!("{}: {e}", path.display())))
}

impl Embedder {
    /// Token ids of `text` with the role's prefix, including `<s>` and `</s>`, truncated to 512.
    pub fn tokenize(&self, text: &str, role: Role) -> Result<Vec<u32>, ModelError> {
        let input = format!("{}{}", role.prefix(), text);
        let st = self.lock()?;
        let enc = if st.full {
            st.te.tokenizer().encode(input.as_str(), true)
        } else {
            configure(
                self.index.reduced_for(&[input.as_str()])?,
                self.options.max_tokens,
            )
            .encode(input.as_str(), true)
        };
        Ok(enc
            .map_err(|e| ModelError::Tokenizer(e.to_string()))?
            .get_ids()
            .to_vec())
    }

    /// Build the full tokenizer now (otherwise built from the second call on, or at once for
    /// more than 512 texts).
    pub fn prepare_full_tokenizer(&self) -> Result<(), ModelError> {
        let mut st = self.lock()?;
        self.install_full(&mut st)
    }

    /// Make the full tokenizer `te.tokenizer`: the one being built on a spare thread if any,
    /// else built here.
    pub(super) fn install_full(&self, st: &mut State) -> Result<(), ModelError> {
        if !st.full {
            *st.te.tokenizer_mut() = match st.pending.take() {
                Some(h) => h
                    .join()
                    .map_err(|_| ModelError::Tokenizer("tokenizer thread panicked".into()))??,
                None => full_tokenizer(&self.index, self.options.max_tokens)?,
            };
            st.full = true;
        }
        Ok(())
    }

    /// Run `run` with a tokenizer that covers `refs` (prefixed texts): the full one when it is
    /// built or due, else one reduced to these texts, swapped in for the call.
    pub(super) fn with_tokenizer_for<T>(
        &self,
        refs: &[&str],
        run: &mut dyn FnMut(&mut Runner) -> Result<T, ModelError>,
    ) -> Result<T, ModelError> {
        let mut st = self.lock()?;
        if !st.full {
            // The model needs real token ids, so a reduced tokenizer keeps all 250k ids (most
            // of them empty pieces) and costs tens of ms per call; the full one costs ~1 s
            // once. A process that embeds a second time is likely to go on (a server, batch
            // queries): build the full one on a spare thread from then on and switch when it
            // is ready; a one-query process never pays for it. Large inputs build it at once.
            let ready = st.pending.as_ref().is_some_and(JoinHandle::is_finished);
            if ready || st.reduced_texts + refs.len() > REDUCED_BUDGET {
                self.install_full(&mut st)?;
            } else if st.pending.is_none() && st.reduced_texts > 0 {
                let index = Arc::clone(&self.index);
                let max_tokens = self.options.max_tokens;
                st.pending = Some(std::thread::spawn(move || {
                    full_tokenizer(&index, max_tokens)
                }));
            }
        }
        let saved = if st.full {
            None
        } else {
            st.reduced_texts += refs.len();
            // The tokenizer prepared at load covers every text it was built for, exactly.
            let reduced = match st.prepared.take() {
                Some((texts, tok)) if refs.iter().all(|r| texts.iter().any(|t| t == r)) => tok,
                _ => configure(self.index.reduced_for(refs)?, self.options.max_tokens),
            };
            Some(std::mem::replace(st.te.tokenizer_mut(), reduced))
        };
        let result = run(&mut st.te);
        if let Some(placeholder) = saved {
            *st.te.tokenizer_mut() = placeholder;
        }
        result
    }
}
