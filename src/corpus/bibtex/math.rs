//! TeX math (`$...$` in a title or abstract) as readable text: Greek letters and common symbols
//! as their Unicode characters (`\alpha` -> `α`, `\ell` -> `ℓ`, `\leq` -> `≤`), font and size
//! commands dropped for their argument (`\mathcal{O}` -> `O`), `\frac{a}{b}` -> `a/b`,
//! `\sqrt{x}` -> `√x`, any other command as its name (`\log` -> `log`), braces dropped; the rest
//! kept as written (`O(n^2)`), so a title reads and searches as its author wrote it.

/// The character a symbol command stands for.
pub(super) fn symbol(name: &str) -> Option<&'static str> {
    Some(match name {
        "alpha" => "α",
        "beta" => "β",
        "gamma" => "γ",
        "delta" => "δ",
        "epsilon" | "varepsilon" => "ε",
        "zeta" => "ζ",
        "eta" => "η",
        "theta" | "vartheta" => "θ",
        "iota" => "ι",
        "kappa" => "κ",
        "lambda" => "λ",
        "mu" => "μ",
        "nu" => "ν",
        "xi" => "ξ",
        "pi" => "π",
        "rho" | "varrho" => "ρ",
        "sigma" => "σ",
        "tau" => "τ",
        "upsilon" => "υ",
        "phi" | "varphi" => "φ",
        "chi" => "χ",
        "psi" => "ψ",
        "omega" => "ω",
        "Gamma" => "Γ",
        "Delta" => "Δ",
        "Theta" => "Θ",
        "Lambda" => "Λ",
        "Xi" => "Ξ",
        "Pi" => "Π",
        "Sigma" => "Σ",
        "Upsilon" => "Υ",
        "Phi" => "Φ",
        "Psi" => "Ψ",
        "Omega" => "Ω",
        "ell" => "ℓ",
        "infty" => "∞",
        "partial" => "∂",
        "nabla" => "∇",
        "sum" => "∑",
        "prod" => "∏",
        "int" => "∫",
        "times" => "×",
        "cdot" => "·",
        "cdots" => "⋯",
        "ldots" | "dots" => "…",
        "pm" => "±",
        "mp" => "∓",
        "leq" | "le" => "≤",
        "geq" | "ge" => "≥",
        "neq" | "ne" => "≠",
        "ll" => "≪",
        "gg" => "≫",
        "approx" => "≈",
        "sim" => "∼",
        "simeq" => "≃",
        "equiv" => "≡",
        "propto" => "∝",
        "to" | "rightarrow" => "→",
        "leftarrow" | "gets" => "←",
        "Rightarrow" | "implies" => "⇒",
        "leftrightarrow" => "↔",
        "mapsto" => "↦",
        "in" => "∈",
        "notin" => "∉",
        "subset" => "⊂",
        "subseteq" => "⊆",
        "cup" => "∪",
        "cap" => "∩",
        "forall" => "∀",
        "exists" => "∃",
        "neg" | "lnot" => "¬",
        "wedge" | "land" => "∧",
        "vee" | "lor" => "∨",
        "emptyset" | "varnothing" => "∅",
        "circ" => "∘",
        "star" => "⋆",
        "ast" => "∗",
        "top" => "⊤",
        "perp" | "bot" => "⊥",
        "mid" => "|",
        "langle" => "⟨",
        "rangle" => "⟩",
        "Vert" | "lVert" | "rVert" => "‖",
        _ => return None,
    })
}

/// Commands that only style or size what follows: dropped, their argument kept.
const STYLES: &[&str] = &[
    "mathcal",
    "mathbf",
    "mathrm",
    "mathit",
    "mathsf",
    "mathtt",
    "mathbb",
    "mathfrak",
    "mathscr",
    "boldsymbol",
    "bm",
    "text",
    "textrm",
    "textit",
    "textbf",
    "textsf",
    "texttt",
    "operatorname",
    "mbox",
    "left",
    "right",
    "big",
    "Big",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "displaystyle",
    "hat",
    "tilde",
    "bar",
    "vec",
    "dot",
    "overline",
    "underline",
    "widehat",
    "widetilde",
    "limits",
];

/// `tex` (a math chunk's content, without its `$`) as plain text: no backslash or brace is
/// left.
pub(super) fn plain(tex: &str) -> String {
    let mut out = String::with_capacity(tex.len());
    let mut rest = tex;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            '\\' => {
                let name_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
                let name = &rest[..name_len];
                rest = &rest[name_len..];
                if name.is_empty() {
                    // `\,` `\;` `\ ` are spaces, `\!` nothing, `\{` `\%` the symbol.
                    if let Some(s) = rest.chars().next() {
                        rest = &rest[s.len_utf8()..];
                        match s {
                            ',' | ';' | ':' | ' ' => out.push(' '),
                            '!' | '{' | '}' => {}
                            s => out.push(s),
                        }
                    }
                } else if let Some(sym) = symbol(name) {
                    out.push_str(sym);
                } else if name == "frac" || name == "sqrt" {
                    let (a, after) = argument(rest);
                    if name == "sqrt" {
                        rest = after;
                        out.push('√');
                        out.push_str(&grouped(&plain(a)));
                    } else {
                        let (b, after) = argument(after);
                        rest = after;
                        out.push_str(&grouped(&plain(a)));
                        out.push('/');
                        out.push_str(&grouped(&plain(b)));
                    }
                } else if !STYLES.contains(&name) {
                    out.push_str(name);
                }
            }
            '{' | '}' => {}
            '~' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A command's argument: a brace group's content or one character; and the text after it.
fn argument(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    if let Some(inner) = s.strip_prefix('{') {
        let mut depth = 1;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return (&inner[..i], &inner[i + 1..]);
                    }
                }
                _ => {}
            }
        }
        return (inner, "");
    }
    match s.chars().next() {
        Some(c) => s.split_at(c.len_utf8()),
        None => ("", ""),
    }
}

/// `x` as a fraction's or root's operand: in parentheses unless it is one letter or number.
fn grouped(x: &str) -> String {
    let x = x.trim();
    if x.chars().all(char::is_alphanumeric) || x.chars().count() <= 1 {
        x.to_string()
    } else {
        format!("({x})")
    }
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn math_reads_as_text() {
        for (tex, text) in [
            (r"\alpha", "α"),
            (r"O(n^2)", "O(n^2)"),
            (r"\ell_1", "ℓ_1"),
            (r"\mathcal{O}(\log n)", "O(log n)"),
            (r"\frac{1}{2}", "1/2"),
            (r"\frac{n+1}{k}", "(n+1)/k"),
            (r"\sqrt{d}", "√d"),
            (r"x_{t} \leq \epsilon", "x_t ≤ ε"),
            (r"\mathbb{R}^{d}", "R^d"),
            (r"\frac{1", "1/"),
            (r"\", ""),
        ] {
            assert_eq!(plain(tex), text, "{tex}");
        }
    }
}
