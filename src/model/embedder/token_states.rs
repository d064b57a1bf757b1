//! Token states: the contextual vector of each token from the model's last layer, before
//! pooling, what token alignment and search's token matching compare. Apart from the pooled
//! vectors because a build asks for them in bulk and a query with its vector.

use super::super::{DIM, ModelError, encoder};
use super::{Embedder, Role, length_batches, token_counts};

/// The contextual vectors of one text's tokens, as the model's last layer gives them before
/// pooling: what token-level matching ([`crate::engine::alignment`]) compares. `<s>`, `</s>`
/// and padding are left out; the role's prefix tokens are kept (they occur in every text of a
/// list, which is how a caller weighing tokens by rarity gives them nothing).
#[derive(Debug, Clone, PartialEq)]
pub struct TokenStates {
    /// Token ids, one per row of `states`.
    pub ids: Vec<u32>,
    /// `ids.len()` rows of [`DIM`] values, row after row; not normalized.
    pub states: Vec<f32>,
}

/// The [`TokenStates`] of the first `texts` rows of a batch's model output.
fn token_rows(
    ids: &ndarray::Array2<i64>,
    mask: &ndarray::Array2<i64>,
    hidden: &ndarray::Array3<f32>,
    texts: usize,
) -> Result<Vec<TokenStates>, ModelError> {
    if hidden.dim().2 != DIM || hidden.dim().0 < texts {
        return Err(ModelError::Runtime(format!(
            "model returned {:?} token states for {texts} texts of {DIM} values",
            hidden.dim()
        )));
    }
    Ok((0..texts)
        .map(|row| {
            // Real tokens are the unmasked prefix of the row: `<s>` first, `</s>` last.
            let real = mask.row(row).iter().take_while(|&&m| m == 1).count();
            let keep = 1..real.saturating_sub(1).max(1);
            let mut t = TokenStates {
                ids: Vec::with_capacity(keep.len()),
                states: Vec::with_capacity(keep.len() * DIM),
            };
            for k in keep {
                t.ids.push(u32::try_from(ids[[row, k]]).unwrap_or(0));
                t.states
                    .extend(hidden.slice(ndarray::s![row, k, ..]).iter());
            }
            t
        })
        .collect())
}

impl Embedder {
    /// The token states ([`TokenStates`]) of each text with `role`'s prefix, in input order,
    /// in batches of similar lengths within [`EmbedderOptions::max_batch_tokens`]. The full
    /// tokenizer is built first if it is not yet (about a second): this serves builds, not
    /// one-shot queries.
    pub fn token_states(&self, texts: &[&str], role: Role) -> Result<Vec<TokenStates>, ModelError> {
        let prefixed: Vec<String> = texts
            .iter()
            .map(|t| format!("{}{}", role.prefix(), t))
            .collect();
        let mut st = self.lock()?;
        self.install_full(&mut st)?;
        let refs: Vec<&str> = prefixed.iter().map(String::as_str).collect();
        let lens = token_counts(st.te.tokenizer(), &refs)?;
        let mut out: Vec<Option<TokenStates>> = vec![None; texts.len()];
        for members in length_batches(&lens, &self.options) {
            let batch: Vec<&str> = members.iter().map(|&i| refs[i]).collect();
            let Some((ids, mask, hidden)) = st.te.hidden(&batch)? else {
                break;
            };
            let rows = token_rows(&ids, &mask, &hidden, members.len())?;
            for (&i, t) in members.iter().zip(rows) {
                out[i] = Some(t);
            }
        }
        out.into_iter()
            .map(|t| t.ok_or_else(|| ModelError::Runtime("no token states returned".into())))
            .collect()
    }

    /// One query's vector and its token states ([`TokenStates`]) from one run of the model,
    /// with the tokenizer a query gets (no full tokenizer built for it): the vector is the one
    /// [`Embedder::embed`] gives.
    pub fn embed_query_with_tokens(
        &self,
        text: &str,
    ) -> Result<(Vec<f32>, TokenStates), ModelError> {
        let prefixed = format!("{}{}", Role::Query.prefix(), text);
        let refs = [prefixed.as_str()];
        let (ids, mask, hidden) = self
            .with_tokenizer_for(&refs, &mut |te| te.hidden(&refs))?
            .ok_or_else(|| ModelError::Runtime("no output for the query".into()))?;
        let vector = encoder::mean_pool(&mask, &hidden)?
            .pop()
            .ok_or_else(|| ModelError::Runtime("no vector returned".into()))?;
        let mut states = token_rows(&ids, &mask, &hidden, 1)?;
        Ok((vector, states.remove(0)))
    }
}
