#!/usr/bin/env python3
"""Generates policies/torch_stable_abi.json: PyTorch's LibTorch stable ABI, every C shim function
(declared AOTI_TORCH_EXPORT in torch's C shim headers) with the oldest torch release (major.minor)
that provides it, so a rule can say that an extension using only the stable ABI must require at
least the torch that introduced the newest shim it imports.

  gen_torch_stable_abi.py [--wheel-dir DIR] [--cache DIR] (--out FILE | --check FILE)
  gen_torch_stable_abi.py [--wheel-dir DIR] [--cache DIR] --pin VERSION...
  gen_torch_stable_abi.py --selftest

The source is torch's own headers, read out of the manylinux x86_64 cp312 wheels on PyPI (one per
minor release, its .0, from RELEASES): only the few members needed are read, with HTTP range
requests (the zip's end records and central directory, then each member's local header and
deflated data, inflated with zlib), never the ~900 MB wheel. The headers read in each wheel are
  torch/include/torch/csrc/stable/c/*.h
  torch/include/torch/csrc/inductor/aoti_torch/c/*.h
  torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_*.h
plus torch/include/torch/csrc/stable/version.h and torch/include/torch/headeronly/version.h (where
the TORCH_VERSION_X_Y_Z guard macros are defined) and torch/version.py (the git commit). A shim's
version is the oldest release whose headers declare it, or, when its declaration sits under
`#if TORCH_FEATURE_VERSION >= TORCH_VERSION_X_Y_Z`, that X.Y when it is newer. Shims that a later
release no longer declares go to "removed" (name -> the first release without it). Other #if
blocks (USE_CUDA, AT_MKLDNN_ENABLED, include guards) do not gate a shim's version.

Every member read is pinned in PINS (release, wheel file name, member path, sha256 of its bytes):
a member whose bytes differ, a pinned member the wheel lacks, or a shim header the wheel has that
PINS does not list stops the generator (exit 1, naming it), so the shipped table cannot silently
change (the last is checked whenever a wheel's central directory is read, i.e. unless every
pinned member of it comes from --cache: a wheel on PyPI never changes, so once is enough).
--pin VERSION... prints the RELEASES and PINS rows for those torch versions' wheels (to add the
next release). RELEASES starts at 2.9, the first release of the stable ABI (torch/csrc/stable/ops.h,
generated/c_shim_aten.h; PyTorch documents STABLE_TORCH_LIBRARY as compatible from 2.9): 2.7 and
2.8 shipped torch/csrc/stable/library.h as a preview with no compatibility promise, and the
aoti_torch shims of 2.2..2.8 were AOTInductor's, so a shim present in 2.9 is recorded as "2.9".

--wheel-dir reads a wheel from DIR/<file name> when it is there instead of the network; --cache
keeps fetched members in DIR (by sha256) so a second run reads nothing from the network.
--check regenerates in memory and exits 1, naming the first differences, when FILE disagrees.
--selftest parses a made-up header and exits 0 when the parser reads it as expected, 1 if not.
Exit 3 when PyPI cannot be reached (callers skip), 1 on any other failure."""
import argparse, hashlib, http.client, json, os, re, struct, sys, time, urllib.error, urllib.parse, urllib.request, zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wc_cache  # noqa: E402

PYPI_JSON = "https://pypi.org/pypi/torch/{}/json"
HEADER_PATTERNS = (
    re.compile(r"torch/include/torch/csrc/stable/c/[^/]+\.h"),
    re.compile(r"torch/include/torch/csrc/inductor/aoti_torch/c/[^/]+\.h"),
    re.compile(r"torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_[^/]+\.h"),
)
EXTRA_MEMBERS = ("torch/include/torch/csrc/stable/version.h", "torch/include/torch/headeronly/version.h",
                 "torch/version.py")

# release -> (version, wheel file name, sha256 of the whole wheel as PyPI lists it)
RELEASES = {
    "2.9": ("2.9.0", "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl",
             "01cff95ecd9a212ea2f141db28acccdceb6a4c54f64e6c51091146f5e2a772c6"),
    "2.10": ("2.10.0", "torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64.whl",
             "787124e7db3b379d4f1ed54dd12ae7c741c16a4d29b49c0226a89bea50923ffb"),
    "2.11": ("2.11.0", "torch-2.11.0-cp312-cp312-manylinux_2_28_x86_64.whl",
             "0f68f4ac6d95d12e896c3b7a912b5871619542ec54d3649cf48cc1edd4dd2756"),
    "2.12": ("2.12.0", "torch-2.12.0-cp312-cp312-manylinux_2_28_x86_64.whl",
             "4b4f64c2c2b11f7510d93dd6412b87025ff6eddd6bb61c3b5a3d892ea20c4756"),
    "2.13": ("2.13.0", "torch-2.13.0-cp312-cp312-manylinux_2_28_x86_64.whl",
             "796633c4cdf0fe2cdced72d8f88f22e73dbcfce83132763162f6d4bff13b820b"),
    "2.14": ("2.14.0", "torch-2.14.0-cp312-cp312-manylinux_2_28_x86_64.whl",
             "fecffb58f51fd643d213acd68da21cc3fc19bea05a3bc64b4ee55128f47a4963"),
    "2.15": ("2.15.0", "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl",
             "6d8c86f4e33a9f12a58149bd9b0d64351632b8eb44479be8ff85e5389932dd79"),
}
# (release, member path) -> sha256 of the member's bytes, for the wheel RELEASES names
PINS = {
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/c/macros.h"):
        "75b0f6b3367ccc40873d8b0a08e0bc953e16263ec29db90abe51abb01994979c",
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/c/shim.h"):
        "3a70839adc77b87c8a127a92b69d50e40075418ea0177fb99365682654d76fab",
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_cpu.h"):
        "b71fcafc63ca609dbf7abab959f5b1e028ff53ffd97b6f2dbde6b592f3c1aeb2",
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_deprecated.h"):
        "f387d347aa83d1454d5d8f5a9a69fb2b5169e518fd9af2878c2916b483849828",
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_mps.h"):
        "78a119b3a65cda477881992a70b7ede8e312e1b8d3150e2349473f423a3f41ac",
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_xpu.h"):
        "3ecaa2aa5dc33970996972efec6c282827108b8078221838b78f4fbc7f185c26",
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h"):
        "e91b8bf29869b4d251b9cbb49ae2d4c16334fd2b84108b003bb472433434de7f",
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h"):
        "e45d728aa5e17dd67b63ef9d06a4fe75896b0e81eacddb3b71f09dfc21ef18db",
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h"):
        "682c7eb5ee2596b4bcd8362274fc7f4539886b7d23eabebdd02df7127ec479a1",
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_mps.h"):
        "9a3e8e0417b218d749707aede70bc94b82fb50138aed691b634068bacb68a508",
    ("2.9", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_xpu.h"):
        "bcaf59115b563a641b2eee4f3f13ea0471e8399de95918c093677baee1ee1bbd",
    ("2.9", "torch/version.py"):
        "a0da9606e0ab72bc6043b9525204c8824d42f4feb37ec565a1ca6a3c272465e4",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/c/macros.h"):
        "75b0f6b3367ccc40873d8b0a08e0bc953e16263ec29db90abe51abb01994979c",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/c/shim.h"):
        "4ff22ae6d3310511cce30706b8f59a25e036262eb639ec8d05c12eeb495998aa",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_cpu.h"):
        "b71fcafc63ca609dbf7abab959f5b1e028ff53ffd97b6f2dbde6b592f3c1aeb2",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_deprecated.h"):
        "f387d347aa83d1454d5d8f5a9a69fb2b5169e518fd9af2878c2916b483849828",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_mps.h"):
        "d73c79c567d0b0b53b1df21531fce8b6f143266263025a9654772701abc1d386",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_xpu.h"):
        "3ecaa2aa5dc33970996972efec6c282827108b8078221838b78f4fbc7f185c26",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h"):
        "c46fc084025bcff9801f0cc0312bb4ba1720143f7c2947d4ae6747a10fe3eb3c",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h"):
        "e45d728aa5e17dd67b63ef9d06a4fe75896b0e81eacddb3b71f09dfc21ef18db",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h"):
        "b06e0c65028737e00973eb3530f9ea6c57996b2c2a949defd8c403c9f09cbee5",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_mps.h"):
        "be41265a8342a7e708f8872dfe1dd89e1a3757e9e0f10de0e4e013e81d8170f5",
    ("2.10", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_xpu.h"):
        "2f1686a11b72af540c9467f5261d6b0938bf1394f2e98d2fb6e07009abce6d07",
    ("2.10", "torch/include/torch/csrc/stable/c/shim.h"):
        "7480216829802b2e38303d1bcc80910db5afcf6a8aff265997799d351361b8e2",
    ("2.10", "torch/include/torch/csrc/stable/version.h"):
        "acf87f03fe8eede19acf922058d599601e5fe00608f4416f1a4c84e6d3c0c5cc",
    ("2.10", "torch/include/torch/headeronly/version.h"):
        "f4b7b26209431358307b77cde558add3c4565ad06852627a7988ae5a0c9cc645",
    ("2.10", "torch/version.py"):
        "53e3fb24ceaf300de811ae08721e5ca3a0720c7ef900c8365da3fe80c7271ebc",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/c/macros.h"):
        "75b0f6b3367ccc40873d8b0a08e0bc953e16263ec29db90abe51abb01994979c",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/c/shim.h"):
        "4ff22ae6d3310511cce30706b8f59a25e036262eb639ec8d05c12eeb495998aa",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_cpu.h"):
        "b71fcafc63ca609dbf7abab959f5b1e028ff53ffd97b6f2dbde6b592f3c1aeb2",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_deprecated.h"):
        "f387d347aa83d1454d5d8f5a9a69fb2b5169e518fd9af2878c2916b483849828",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_mps.h"):
        "d73c79c567d0b0b53b1df21531fce8b6f143266263025a9654772701abc1d386",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_xpu.h"):
        "3ecaa2aa5dc33970996972efec6c282827108b8078221838b78f4fbc7f185c26",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h"):
        "c46fc084025bcff9801f0cc0312bb4ba1720143f7c2947d4ae6747a10fe3eb3c",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h"):
        "89b37b9ef25f928bff23a052d1bd1d5390fb217314d18abd25eb9b8dad66136a",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h"):
        "b5bf6a0dab01437c49078359a8461e7b2e2ad781fc3abef18fe3dc2c67b10d54",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_mps.h"):
        "4ecb84d1c4cbe4043b3e22897a03656f2922bfedcccb236f68828c60b8667768",
    ("2.11", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_xpu.h"):
        "32d7abf1ddda55cc4f52ddfb95da577f3c03934da662fdb3fd02d69b3747d8c1",
    ("2.11", "torch/include/torch/csrc/stable/c/shim.h"):
        "9a52bf0b499e665fb6af8d8937b8c4e1a4a82d4fedeeebb27d3d345e783696ea",
    ("2.11", "torch/include/torch/csrc/stable/version.h"):
        "4a2d4146373f6b9ed0a242120326c0e294d1ba44a44c9ed4bbf79c2fba0b201f",
    ("2.11", "torch/include/torch/headeronly/version.h"):
        "2a42e1ef5ebed8c296a822d4e1c580bc054290283032e84877e6aff32d47b0ea",
    ("2.11", "torch/version.py"):
        "323d35171ef1184f1d7db3bbd1f3d3e227e0e826be8fd52200778346e17c873f",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/c/macros.h"):
        "75b0f6b3367ccc40873d8b0a08e0bc953e16263ec29db90abe51abb01994979c",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/c/shim.h"):
        "5a3f16755defdabf3bdb26a68b05a0e83971161e6f7608c1c64872f7c9855863",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_cpu.h"):
        "b71fcafc63ca609dbf7abab959f5b1e028ff53ffd97b6f2dbde6b592f3c1aeb2",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_deprecated.h"):
        "f387d347aa83d1454d5d8f5a9a69fb2b5169e518fd9af2878c2916b483849828",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_mps.h"):
        "d73c79c567d0b0b53b1df21531fce8b6f143266263025a9654772701abc1d386",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_xpu.h"):
        "3ecaa2aa5dc33970996972efec6c282827108b8078221838b78f4fbc7f185c26",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h"):
        "c46fc084025bcff9801f0cc0312bb4ba1720143f7c2947d4ae6747a10fe3eb3c",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h"):
        "138dae1c6ee9d58cc90822c7af8f139de98b3cba8a9f4e1afbec96aab061f165",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h"):
        "2d076d7187543b7bc7216d90085569688d6f9ed62422128187654a3f347ef188",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_mps.h"):
        "54225166b3519f3a4992904c630bc6cd29cf3a5781b2fdcf6fd33f0ccf3ea345",
    ("2.12", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_xpu.h"):
        "2df9e06878db12be7e99302e1f0956d5f81613f88587ed110728e04771b1b3e0",
    ("2.12", "torch/include/torch/csrc/stable/c/shim.h"):
        "610b0c1fe30c29029092d49ac6e99218b58ba4e8f88cd5e6f2f60132e250a1c0",
    ("2.12", "torch/include/torch/csrc/stable/version.h"):
        "f582be5a48b77f095a7aff56991092585500a3d5ebfc533786c5e7ccf0bc67b2",
    ("2.12", "torch/include/torch/headeronly/version.h"):
        "987796928286e256353cd6f4148f419a37a2074da4c1e16c799784d250c28c44",
    ("2.12", "torch/version.py"):
        "a3f452de1a9dcee621e34adc683ab3b1e20836c6a69e40df94f93de21fced9df",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/c/macros.h"):
        "75b0f6b3367ccc40873d8b0a08e0bc953e16263ec29db90abe51abb01994979c",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/c/shim.h"):
        "b940331ac167523d553c229054ab2c8e93c39ec1f1a40f8632b381d84b781d86",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_cpu.h"):
        "b71fcafc63ca609dbf7abab959f5b1e028ff53ffd97b6f2dbde6b592f3c1aeb2",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_deprecated.h"):
        "f387d347aa83d1454d5d8f5a9a69fb2b5169e518fd9af2878c2916b483849828",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_mps.h"):
        "d73c79c567d0b0b53b1df21531fce8b6f143266263025a9654772701abc1d386",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_xpu.h"):
        "3ecaa2aa5dc33970996972efec6c282827108b8078221838b78f4fbc7f185c26",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h"):
        "98f90d037ab5fcbafda60ddaa1e64fa8817d31e8b068ab4abaf85faec6dda269",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h"):
        "cef040c6ce2d53644c21fae60352e1a478cdf1b32c15650e33b4aca2df67ae84",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h"):
        "5b1806453f1e6dd92495befe19dc97e28d798e80e5b69aceb06d348e8fdea162",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_mps.h"):
        "e7a1d1b09f660eb3c58f1011fd10733146fdc34dca1a8a5ad62061a446572012",
    ("2.13", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_xpu.h"):
        "3a877ac2ecc16faf77e13f9922350c29684cd0d1ef5bf6198f60f8e5548a791b",
    ("2.13", "torch/include/torch/csrc/stable/c/shim.h"):
        "97a56090c48157377d2c8c388e42047fb2675f88c08157f27512ec50cc318cd2",
    ("2.13", "torch/include/torch/csrc/stable/version.h"):
        "56df8289ad438507af8e39bf1ed96f40810bda7225b605b722b19d345c9ebc67",
    ("2.13", "torch/include/torch/headeronly/version.h"):
        "2f4f62526893b7f7a26e0de81f0e8b2e754d5f57928eedf6b0072e981baff79f",
    ("2.13", "torch/version.py"):
        "d7662da37d4b8b037c81e7ae20381a43893b379facf17988a6d4f17a93265140",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/c/macros.h"):
        "75b0f6b3367ccc40873d8b0a08e0bc953e16263ec29db90abe51abb01994979c",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/c/shim.h"):
        "b940331ac167523d553c229054ab2c8e93c39ec1f1a40f8632b381d84b781d86",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_cpu.h"):
        "b71fcafc63ca609dbf7abab959f5b1e028ff53ffd97b6f2dbde6b592f3c1aeb2",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_deprecated.h"):
        "f387d347aa83d1454d5d8f5a9a69fb2b5169e518fd9af2878c2916b483849828",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_mps.h"):
        "1a5b7a52325f1d8e0159742627ebd8c5f0a7bfa5fb891bdc6f1b08b0b4041382",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_xpu.h"):
        "3ecaa2aa5dc33970996972efec6c282827108b8078221838b78f4fbc7f185c26",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h"):
        "98f90d037ab5fcbafda60ddaa1e64fa8817d31e8b068ab4abaf85faec6dda269",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h"):
        "90d4472f2438a16f0e292fe6125dec40d6e6e318ce5bbcabf307db8ace4bd72d",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h"):
        "6ee0d7f07c04198eec495ff926b90721d7a1dfbc417c0e52acaf680daec8433d",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_mps.h"):
        "4fc5a122c0eba94c615fda7bf7c5f8f3ba637019b1abfda3206583f61cf82a9f",
    ("2.14", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_xpu.h"):
        "16df58d5e152240fbf68cc3dd50f40263094a0cf7f2b393c2e7232d43ef79c54",
    ("2.14", "torch/include/torch/csrc/stable/c/shim.h"):
        "2656298b5c3adfce29633108ca69895959848259e9ffacd51a0d00a4df702292",
    ("2.14", "torch/include/torch/csrc/stable/version.h"):
        "3f200f419035a566e4c360ca76ba09e8bcba1735fda455c78be7ba155d0e3917",
    ("2.14", "torch/include/torch/headeronly/version.h"):
        "77b876fd74293ed7c23d1735a7cba44a602b99c6791eec5fa94e9b7e79b671bb",
    ("2.14", "torch/version.py"):
        "b31eaf43d0d1176473e4d63a41a46b9fcf85afd285c3609375865f78f56c1a65",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/c/macros.h"):
        "75b0f6b3367ccc40873d8b0a08e0bc953e16263ec29db90abe51abb01994979c",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/c/shim.h"):
        "b940331ac167523d553c229054ab2c8e93c39ec1f1a40f8632b381d84b781d86",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_cpu.h"):
        "b71fcafc63ca609dbf7abab959f5b1e028ff53ffd97b6f2dbde6b592f3c1aeb2",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_deprecated.h"):
        "f387d347aa83d1454d5d8f5a9a69fb2b5169e518fd9af2878c2916b483849828",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_mps.h"):
        "1a5b7a52325f1d8e0159742627ebd8c5f0a7bfa5fb891bdc6f1b08b0b4041382",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/c/shim_xpu.h"):
        "3ecaa2aa5dc33970996972efec6c282827108b8078221838b78f4fbc7f185c26",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h"):
        "98f90d037ab5fcbafda60ddaa1e64fa8817d31e8b068ab4abaf85faec6dda269",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h"):
        "90d4472f2438a16f0e292fe6125dec40d6e6e318ce5bbcabf307db8ace4bd72d",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h"):
        "6ee0d7f07c04198eec495ff926b90721d7a1dfbc417c0e52acaf680daec8433d",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_mps.h"):
        "2399ac86260e29f28bf25096e0dda49e9b8e97a13c3cdb0e578940fb77f3a5fe",
    ("2.15", "torch/include/torch/csrc/inductor/aoti_torch/generated/c_shim_xpu.h"):
        "ecea9183c8515cfbc3286acfe36c553a09249001854368ef260bfadb0c38348f",
    ("2.15", "torch/include/torch/csrc/stable/c/shim.h"):
        "301e0ba1fb9a104d449703eaeecdafc6f16f22f289fe3f91ce49b07e2b27bc4d",
    ("2.15", "torch/include/torch/csrc/stable/version.h"):
        "42821cef72ef0d604a5f8828ce6e95152dedc2ff8f4e853805d42eb2d4c6a47c",
    ("2.15", "torch/include/torch/headeronly/version.h"):
        "778e2bd6d9c17eae07c1bf012cdf87067d3530bb6175d173da4a2be28e87e983",
    ("2.15", "torch/version.py"):
        "6feda231420514c053c7116e00e36d3313d6708aa1ab2a93dfa07ad4e5735184",
}


# ---------------------------------------------------------------------------------------------
# Reading members out of a zip with ranged reads


class Fetched(Exception):
    """A member or a wheel is not what PINS says."""


class LocalFile:
    def __init__(self, path):
        self.name, self.f = path, open(path, "rb")
        self.size = os.fstat(self.f.fileno()).st_size
        self.bytes_read = 0

    def read(self, offset, length):
        self.f.seek(offset)
        data = self.f.read(length)
        self.bytes_read += len(data)
        return data

    def close(self):
        self.f.close()


class HttpFile:
    """A remote file read with `Range: bytes=a-b` requests (PyPI's file host answers 206), over
    one kept-alive HTTPS connection."""

    def __init__(self, url):
        self.name, self.bytes_read, self.requests, self.size, self.conn = url, 0, 0, None, None
        self._aim(url)
        tail = self._get("bytes=-1")  # also learns the size from Content-Range
        if self.size is None or len(tail) != 1:
            raise Fetched(f"{url}: the server does not answer range requests")

    def _aim(self, url):
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("https", "http"):
            raise Fetched(f"{url}: not an http(s) URL")
        self.url, self.host, self.scheme = url, u.netloc, u.scheme
        self.path = u.path + ("?" + u.query if u.query else "")
        self.close()

    def _get(self, spec, redirects=5):
        for attempt in range(3):
            try:
                if self.conn is None:
                    cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
                    self.conn = cls(self.host, timeout=120)
                self.conn.request("GET", self.path,
                                  headers={"Range": spec, "User-Agent": "wheelcheck-gen_torch_stable_abi"})
                r = self.conn.getresponse()
                data = r.read()
                if r.status in (301, 302, 303, 307, 308) and r.getheader("Location") and redirects:
                    self._aim(urllib.parse.urljoin(self.url, r.getheader("Location")))
                    return self._get(spec, redirects - 1)
                if r.status != 206:
                    raise Fetched(f"{self.url}: answered {r.status} to a range request")
                m = re.match(r"bytes (\d+)-(\d+)/(\d+)", r.getheader("Content-Range", ""))
                if not m:
                    raise Fetched(f"{self.url}: no Content-Range in a 206 answer")
                if len(data) != int(m.group(2)) - int(m.group(1)) + 1:
                    raise http.client.IncompleteRead(data)
                self.size = int(m.group(3))
                self.requests += 1
                self.bytes_read += len(data)
                return data
            except (http.client.HTTPException, ConnectionError, TimeoutError) as e:
                self.close()
                if attempt == 2:
                    raise Fetched(f"{self.url}: {spec}: {e!r}") from e
                time.sleep(1 + attempt)
            except OSError as e:  # no route, no DNS: offline
                self.close()
                raise wc_cache.Offline(f"cannot reach {self.url}: {e}") from e

    def read(self, offset, length):
        if length <= 0:
            return b""
        return self._get(f"bytes={offset}-{offset + length - 1}")

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def central_directory(src):
    """name -> (local header offset, compressed size, size, method, crc32) of every member."""
    tail_len = min(src.size, 65536 + 22 + 20)
    tail = src.read(src.size - tail_len, tail_len)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0:
        raise Fetched(f"{src.name}: no end of central directory record: not a zip")
    entries, cd_size, cd_offset = struct.unpack_from("<HII", tail, at + 10)
    if 0xFFFF in (entries,) or 0xFFFFFFFF in (cd_size, cd_offset):  # zip64
        loc = tail.rfind(b"PK\x06\x07", 0, at)
        if loc < 0:
            raise Fetched(f"{src.name}: zip64 fields without a zip64 locator")
        (eocd64_at,) = struct.unpack_from("<Q", tail, loc + 8)
        rec = src.read(eocd64_at, 56)
        if rec[:4] != b"PK\x06\x06":
            raise Fetched(f"{src.name}: bad zip64 end of central directory record")
        entries, cd_size, cd_offset = struct.unpack_from("<QQQ", rec, 32)
    cd = src.read(cd_offset, cd_size)
    members, pos = {}, 0
    for _ in range(entries):
        if cd[pos:pos + 4] != b"PK\x01\x02":
            raise Fetched(f"{src.name}: bad central directory entry at {cd_offset + pos}")
        (method, _t, _d, crc, csize, usize, nlen, xlen, clen, _disk, _ia, _ea,
         offset) = struct.unpack_from("<HHHIIIHHHHHII", cd, pos + 10)
        name = cd[pos + 46:pos + 46 + nlen].decode("utf-8", "replace")
        extra = cd[pos + 46 + nlen:pos + 46 + nlen + xlen]
        if 0xFFFFFFFF in (csize, usize, offset):
            x = 0
            while x + 4 <= len(extra):
                tag, ln = struct.unpack_from("<HH", extra, x)
                if tag == 1:
                    vals, v = list(struct.unpack_from(f"<{ln // 8}Q", extra, x + 4)), 0
                    if usize == 0xFFFFFFFF:
                        usize, v = vals[v], v + 1
                    if csize == 0xFFFFFFFF:
                        csize, v = vals[v], v + 1
                    if offset == 0xFFFFFFFF:
                        offset = vals[v]
                x += 4 + ln
        members[name] = (offset, csize, usize, method, crc)
        pos += 46 + nlen + xlen + clen
    return members


def read_member(src, members, name):
    offset, csize, usize, method, crc = members[name]
    guess = 30 + len(name.encode()) + 64 + csize  # the local extra field is usually short or empty
    blob = src.read(offset, min(guess, src.size - offset))
    if blob[:4] != b"PK\x03\x04":
        raise Fetched(f"{src.name}: {name}: bad local header")
    nlen, xlen = struct.unpack_from("<HH", blob, 26)
    start = 30 + nlen + xlen
    raw = blob[start:start + csize]
    if len(raw) < csize:
        raw += src.read(offset + start + len(raw), csize - len(raw))
    if method == 0:
        data = raw
    elif method == 8:
        d = zlib.decompressobj(-15)
        data = d.decompress(raw) + d.flush()
    else:
        raise Fetched(f"{src.name}: {name}: compression method {method} is not stored or deflate")
    if len(data) != usize or zlib.crc32(data) != crc:
        raise Fetched(f"{src.name}: {name}: size or CRC-32 does not match its central directory entry")
    return data


def wanted(members):
    """The members this generator reads from a wheel with this central directory."""
    heads = [n for n in members if any(p.fullmatch(n) for p in HEADER_PATTERNS)]
    return sorted(heads) + [n for n in EXTRA_MEMBERS if n in members]


_listing = {}


def pypi_files(version):
    """[(file name, url, sha256)] of torch VERSION's files: from PyPI's JSON API
    (pypi.org/pypi/torch/VERSION/json), or, where that answers 404 (some mirrors serve only the
    project page), from the simple index's JSON page (PEP 691, WHEELCHECK_PYPI_SIMPLE)."""
    if version in _listing:
        return _listing[version]
    try:
        try:
            with urllib.request.urlopen(PYPI_JSON.format(version), timeout=60) as r:
                doc = json.load(r)
            files = [(f["filename"], urllib.parse.urljoin(r.url, f["url"]), f["digests"]["sha256"])
                     for f in doc["urls"]]
        except urllib.error.HTTPError as e:
            if e.code != 404:
                raise
            base = wc_cache.index_url()
            req = urllib.request.Request(f"{base}/torch/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
            with urllib.request.urlopen(req, timeout=120) as r:
                page = json.load(r)
            prefix = f"torch-{version}-"
            files = [(f["filename"], urllib.parse.urljoin(f"{base}/torch/", f["url"]), f["hashes"].get("sha256", ""))
                     for f in page["files"] if f["filename"].startswith(prefix)]
    except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
        raise wc_cache.Offline(f"cannot reach PyPI for torch {version}: {e}") from e
    _listing[version] = files
    return files


def wheel_url(version, filename):
    for name, url, sha in pypi_files(version):
        if name == filename:
            return url, sha
    raise Fetched(f"torch {version}: PyPI does not list {filename}")


def pick_wheel(version):
    """The manylinux x86_64 cp312 wheel of torch VERSION without a build tag, for --pin."""
    for name, url, sha in pypi_files(version):
        if re.fullmatch(rf"torch-{re.escape(version)}-cp312-cp312-manylinux[\w.]*x86_64\.whl", name):
            return name, url, sha
    raise Fetched(f"torch {version}: no manylinux x86_64 cp312 wheel on PyPI")


def open_wheel(version, filename, wheel_dir, wheel_sha256=None):
    local = os.path.join(wheel_dir, filename) if wheel_dir else None
    if local and os.path.isfile(local):
        return LocalFile(local)
    url, listed = wheel_url(version, filename)
    if wheel_sha256 and listed != wheel_sha256:
        raise Fetched(f"{filename}: PyPI lists sha256 {listed}, pinned {wheel_sha256}")
    try:
        return HttpFile(url)
    except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
        raise wc_cache.Offline(f"cannot reach {url}: {e}") from e


def cached(cache, sha256):
    if cache:
        path = os.path.join(cache, "torch-headers", sha256)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                data = f.read()
            if hashlib.sha256(data).hexdigest() == sha256:
                return data
    return None


def read_release(release, wheel_dir, cache, stats):
    """member path -> bytes for RELEASE's pinned members, each checked against PINS."""
    version, filename, wheel_sha256 = RELEASES[release]
    pinned = sorted(m for (r, m) in PINS if r == release)
    out = {m: cached(cache, PINS[(release, m)]) for m in pinned}
    if all(v is not None for v in out.values()):
        stats["cached"] += len(out)
        return out
    src = open_wheel(version, filename, wheel_dir, wheel_sha256)
    try:
        members = central_directory(src)
        extra = [m for m in wanted(members) if (release, m) not in PINS]
        if extra:
            raise Fetched(f"torch {release} ({filename}) has {extra[0]}, a shim header PINS does not list: pin it")
        for m in pinned:
            if out[m] is not None:
                continue
            if m not in members:
                raise Fetched(f"torch {release} ({filename}) has no member {m}")
            data = read_member(src, members, m)
            got = hashlib.sha256(data).hexdigest()
            if got != PINS[(release, m)]:
                raise Fetched(f"torch {release} ({filename}) member {m}: sha256 {got}, pinned {PINS[(release, m)]}")
            out[m] = data
            if cache:
                dst = os.path.join(cache, "torch-headers", got)
                with wc_cache.locked(dst):
                    wc_cache.atomic_write(dst, data)
    finally:
        stats["bytes"] += src.bytes_read
        src.close()
    return out


# ---------------------------------------------------------------------------------------------
# Reading the headers


def strip_comments(text):
    """TEXT without comments (each /* */ comment becomes a space, keeping its newlines), string
    and character literals kept, backslash-newline continuations joined."""
    text = text.replace("\\\r\n", "").replace("\\\n", "")
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


VERSION_DEFINE = re.compile(r"#\s*define\s+(TORCH_VERSION_(\d+)_(\d+)_(\d+))\s+(.*)")
VERSION_COND = re.compile(r"\(?\s*TORCH_FEATURE_VERSION\s*>=\s*(TORCH_VERSION_\d+_\d+_\d+)\s*\)?")


def version_macros(text):
    """TORCH_VERSION_X_Y_Z -> (X, Y, Z) from the #defines in TEXT; the value's own shifted fields
    must agree with the name."""
    found = {}
    for line in strip_comments(text).splitlines():
        m = VERSION_DEFINE.match(line.strip())
        if not m:
            continue
        fields = {int(s): int(v) for v, s in re.findall(r"\(\s*0ULL\s*\+\s*(\d+)\s*\)\s*<<\s*(\d+)", m.group(5))}
        value = (fields.get(56, 0), fields.get(48, 0), fields.get(40, 0))
        if value != tuple(int(g) for g in m.group(2, 3, 4)) or not fields:
            raise ValueError(f"#define {m.group(1)} {m.group(5)}: a value this generator does not read as its name")
        found[m.group(1)] = value
    return found


def declarations(text, where="header"):
    """[(name, guard)] for each AOTI_TORCH_EXPORT declaration in TEXT: guard is the
    TORCH_VERSION_X_Y_Z macro of the innermost enclosing `#if TORCH_FEATURE_VERSION >= ...` block
    (None outside one, or in its #else). Other conditionals do not count."""
    stack, code = [], []  # stack: the version macro of each open #if (None: not a version guard)
    for lineno, line in enumerate(strip_comments(text).splitlines(), 1):
        s = line.strip()
        if not s.startswith("#"):
            guards = [g for g in stack if g]
            code.append((line, guards[-1] if guards else None))
            continue
        m = re.match(r"#\s*(\w+)\s*(.*)", s)
        word, cond = (m.group(1), m.group(2).strip()) if m else ("", "")
        if word in ("if", "elif"):
            vm = VERSION_COND.fullmatch(cond)
            if not vm and ("TORCH_FEATURE_VERSION" in cond or "TORCH_VERSION_" in cond or "TORCH_ABI_VERSION" in cond):
                raise ValueError(f"{where}:{lineno}: #{word} {cond}: a version condition this generator does not read")
            g = vm.group(1) if vm else None
            if word == "if":
                stack.append(g)
            elif not stack:
                raise ValueError(f"{where}:{lineno}: #elif without #if")
            else:
                stack[-1] = g
        elif word in ("ifdef", "ifndef"):
            stack.append(None)
        elif word == "else":
            if not stack:
                raise ValueError(f"{where}:{lineno}: #else without #if")
            stack[-1] = None
        elif word == "endif":
            if not stack:
                raise ValueError(f"{where}:{lineno}: #endif without #if")
            stack.pop()
    if stack:
        raise ValueError(f"{where}: {len(stack)} #if blocks left open at the end")
    starts, pos = [], 0  # (offset of each code line in the joined text, its guard)
    for line, g in code:
        starts.append((pos, g))
        pos += len(line) + 1
    joined = "".join(line + "\n" for line, _ in code)
    found = []
    for m in re.finditer(r"\bAOTI_TORCH_EXPORT\b", joined):
        lo, hi = 0, len(starts) - 1
        while lo < hi:  # the line the token is on
            mid = (lo + hi + 1) // 2
            if starts[mid][0] <= m.start():
                lo = mid
            else:
                hi = mid - 1
        guard = starts[lo][1]
        end = re.compile(r"[;{]").search(joined, m.end())
        decl = joined[m.end():end.start() if end else len(joined)]
        decl = re.sub(r"\[\[.*?\]\]", " ", decl, flags=re.S)
        decl = re.sub(r"\b__attribute__\s*\(\(.*?\)\)", " ", decl, flags=re.S)
        paren = decl.find("(")
        if paren < 0:
            raise ValueError(f"{where}: AOTI_TORCH_EXPORT {' '.join(decl.split())[:60]}: not a function declaration")
        head = decl[:paren]
        if not head.strip():
            raise ValueError(f"{where}: AOTI_TORCH_EXPORT {' '.join(decl.split())[:60]}: no name before '('")
        ident = re.search(r"(\w+)\s*$", head)
        if ident is None:  # `T (*name(args))(...)`: a function returning a function pointer
            ident = re.match(r"\s*\*\s*(\w+)", decl[paren + 1:])
        if ident is None:
            raise ValueError(f"{where}: AOTI_TORCH_EXPORT {' '.join(decl.split())[:60]}: no function name")
        found.append((ident.group(1), guard))
    return found


# ---------------------------------------------------------------------------------------------
# The table


def vkey(release):
    return tuple(int(x) for x in release.split("."))


def git_version(version_py, release):
    m = re.search(r"^git_version\s*=\s*'([0-9a-f]{40})'", version_py, re.M)
    v = re.search(r"^__version__\s*=\s*'([^']+)'", version_py, re.M)
    if not (m and v):
        raise ValueError(f"torch {release}: torch/version.py has no git_version or __version__")
    if not v.group(1).startswith(RELEASES[release][0]):
        raise ValueError(f"torch {release}: torch/version.py says {v.group(1)}, the wheel is {RELEASES[release][0]}")
    return m.group(1)


def build(per_release):
    """per_release: release -> {member: bytes}. Returns the "torch_stable_abi" object and notes."""
    releases = sorted(per_release, key=vkey)
    macros, seen, commits, notes = {}, {}, {}, []
    for r in releases:
        files = per_release[r]
        for m in EXTRA_MEMBERS[:2]:
            if m in files:
                macros.update(version_macros(files[m].decode()))
        commits[r] = git_version(files["torch/version.py"].decode(), r)
        decl = {}
        for m in sorted(files):
            if m in EXTRA_MEMBERS:
                continue
            text = files[m].decode()
            macros.update(version_macros(text))
            for name, guard in declarations(text, f"torch {r} {m}"):
                decl.setdefault(name, set()).add(guard)
        for name, guards in decl.items():
            for g in guards:
                if g and g not in macros:
                    raise ValueError(f"torch {r}: {name} is guarded by {g}, which no header read defines")
            seen.setdefault(name, {})[r] = min((macros[g][:2] if g else (0, 0)) for g in guards)
    shims, removed = {}, {}
    for name, where in sorted(seen.items()):
        first = min(where, key=vkey)
        # the guard the newest declaring release puts on it (what an extension compiling now meets)
        guard = where[max(where, key=vkey)]
        version = max(vkey(first)[:2], guard)
        shims[name] = f"{version[0]}.{version[1]}"
        distinct = sorted({g for g in where.values() if g != (0, 0)})
        if len(distinct) > 1 or (distinct and any(g == (0, 0) for g in where.values())):
            steps = sorted(where.items(), key=lambda x: vkey(x[0]))
            notes.append(f"{name}: its guard changes between releases: "
                         + ", ".join(f"{r}:{'%d.%d' % g if g != (0, 0) else 'none'}" for r, g in steps))
        if guard != (0, 0) and guard != vkey(first)[:2]:
            notes.append(f"{name}: first declared in {first}, guarded by {guard[0]}.{guard[1]}: {shims[name]}")
        missing = [r for r in releases if vkey(r) > vkey(first) and r not in where]
        if releases[-1] not in where:
            gone = min((r for r in missing), key=vkey)
            removed[name] = gone
        elif missing:
            notes.append(f"{name}: missing from {', '.join(missing)} but declared again later")
    return {"releases": commits, "shims": shims, "removed": removed}, notes


def source_text(table):
    rs = sorted(table["releases"], key=vkey)
    heads = [f"torch {RELEASES[r][0]} headers (git {table['releases'][r]})" for r in rs]
    return (", ".join(heads[:-1]) + " and " + heads[-1]
            + ": the C shim headers of the manylinux x86_64 cp312 wheels on PyPI")


def document(table):
    rs = sorted(table["releases"], key=vkey)
    src = source_text(table)
    return {
        "$schema": "./policy.schema.json",
        "name": "torch_stable_abi",
        "description": (
            "PyTorch's LibTorch stable ABI: every C shim function (AOTI_TORCH_EXPORT in torch/csrc/stable/c, "
            "torch/csrc/inductor/aoti_torch/c and aoti_torch/generated/c_shim_*.h) with the oldest torch release "
            "that provides it (the later of its first release and its TORCH_FEATURE_VERSION guard); an extension "
            "that uses only the stable ABI must require at least the torch of its newest shim. Generated by "
            f"tools/gen_torch_stable_abi.py from the C shim headers of torch {rs[0]}..{rs[-1]} (commits "
            + ", ".join(table["releases"][r][:12] for r in rs)
            + "); do not edit by hand. Merged into every policy through default."),
        "abi": {"torch_stable_abi": dict(table, source=src)},
    }


def render(doc):
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


# ---------------------------------------------------------------------------------------------
# --selftest

SELFTEST_HEADER = r"""
#ifndef FAKE_SHIM
#define FAKE_SHIM
#include <torch/csrc/inductor/aoti_torch/c/macros.h>
#define TORCH_VERSION_2_10_0 (((0ULL + 2) << 56) | ((0ULL + 10) << 48))
#define TORCH_VERSION_2_12_0 (((0ULL + 2) << 56) | ((0ULL + 12) << 48))
#ifdef __cplusplus
extern "C" {
#endif
// AOTI_TORCH_EXPORT int commented_out_line();
/* AOTI_TORCH_EXPORT int commented_out_block(
   int x); */
AOTI_TORCH_EXPORT int32_t aoti_torch_plain();
AOTI_TORCH_EXPORT AOTITorchError
aoti_torch_split_line(AtenTensorHandle t, int64_t* ret /* returns ) */);
[[deprecated("aoti_torch_old( is deprecated")]]
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_old(
    AtenTensorHandle self, // a comment with AOTI_TORCH_EXPORT int fake(
    int32_t x);
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_10_0
AOTI_TORCH_EXPORT AOTITorchError torch_guarded_2_10(
    const char* s, void (*fn)(StableIValue*, uint64_t), uint64_t v);
#ifdef USE_CUDA
AOTI_TORCH_EXPORT AOTITorchError torch_cuda_in_2_10(void* stream);
#endif // USE_CUDA
#if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
AOTI_TORCH_EXPORT int32_t torch_nested_2_12();
#endif
AOTI_TORCH_EXPORT int32_t torch_after_nested_2_10();
#else
AOTI_TORCH_EXPORT int32_t torch_else_branch();
#endif // TORCH_FEATURE_VERSION >= TORCH_VERSION_2_10_0
#if AT_MKLDNN_ENABLED()
AOTI_TORCH_EXPORT AOTITorchError aoti_torch_cpu_mkldnn(int x);
#if \
    TORCH_FEATURE_VERSION >= TORCH_VERSION_2_12_0
AOTI_TORCH_EXPORT void aoti_torch_continued_2_12(char* msg);
#endif
#endif
#define AOTI_TORCH_CHECK(cond, ...) if (!(cond)) { AOTI_TORCH_EXPORT_NOT(); }
#ifdef __cplusplus
}
#endif
#endif // FAKE_SHIM
"""
SELFTEST_WANT = [
    ("aoti_torch_plain", None), ("aoti_torch_split_line", None), ("aoti_torch_old", None),
    ("torch_guarded_2_10", "TORCH_VERSION_2_10_0"), ("torch_cuda_in_2_10", "TORCH_VERSION_2_10_0"),
    ("torch_nested_2_12", "TORCH_VERSION_2_12_0"), ("torch_after_nested_2_10", "TORCH_VERSION_2_10_0"),
    ("torch_else_branch", None), ("aoti_torch_cpu_mkldnn", None), ("aoti_torch_continued_2_12", "TORCH_VERSION_2_12_0"),
]


def selftest():
    failures = []
    got = declarations(SELFTEST_HEADER, "selftest")
    if got != SELFTEST_WANT:
        failures.append(f"declarations: got {got}, want {SELFTEST_WANT}")
    macros = version_macros(SELFTEST_HEADER)
    if macros != {"TORCH_VERSION_2_10_0": (2, 10, 0), "TORCH_VERSION_2_12_0": (2, 12, 0)}:
        failures.append(f"version macros: got {macros}")
    for bad in ("#if TORCH_FEATURE_VERSION > TORCH_VERSION_2_10_0\n#endif\n", "#if 1\n", "#endif\n",
                "AOTI_TORCH_EXPORT int not_a_function;\n"):
        try:
            declarations(bad, "selftest")
            failures.append(f"accepted {bad!r}")
        except ValueError:
            pass
    # the table: first appearance vs guard, removal
    global RELEASES
    saved = RELEASES
    RELEASES = {"2.9": ("2.9.0", "", ""), "2.10": ("2.10.0", "", ""), "2.11": ("2.11.0", "", "")}
    try:
        vpy = "__version__ = '{}+cpu'\ngit_version = '{}'\n"
        h9 = b"AOTI_TORCH_EXPORT int aoti_torch_a();\nAOTI_TORCH_EXPORT int aoti_torch_gone();\n"
        h10 = SELFTEST_HEADER.encode() + h9
        h11 = SELFTEST_HEADER.encode() + b"AOTI_TORCH_EXPORT int aoti_torch_a();\n"
        table, _ = build({
            "2.9": {"s.h": h9, "torch/version.py": vpy.format("2.9.0", "a" * 40).encode()},
            "2.10": {"s.h": h10, "torch/version.py": vpy.format("2.10.0", "b" * 40).encode()},
            "2.11": {"s.h": h11, "torch/version.py": vpy.format("2.11.0", "c" * 40).encode()},
        })
    finally:
        RELEASES = saved
    want = {"aoti_torch_a": "2.9", "aoti_torch_gone": "2.9", "aoti_torch_plain": "2.10", "torch_guarded_2_10": "2.10",
            "torch_nested_2_12": "2.12", "aoti_torch_continued_2_12": "2.12", "torch_else_branch": "2.10"}
    for k, v in want.items():
        if table["shims"].get(k) != v:
            failures.append(f"table: {k} is {table['shims'].get(k)}, want {v}")
    if table["removed"] != {"aoti_torch_gone": "2.11"}:
        failures.append(f"table: removed is {table['removed']}")
    for f in failures:
        print("selftest: " + f, file=sys.stderr)
    print("selftest: " + ("FAILED" if failures else "ok"))
    return 1 if failures else 0


# ---------------------------------------------------------------------------------------------


def pin(versions, wheel_dir):
    """Prints RELEASES and PINS rows for the given torch versions' wheels."""
    for version in versions:
        release = ".".join(version.split(".")[:2])
        filename, url, wheel_sha = pick_wheel(version)
        local = os.path.join(wheel_dir, filename) if wheel_dir else None
        src = LocalFile(local) if local and os.path.isfile(local) else HttpFile(url)
        members = central_directory(src)
        print(f'    "{release}": ("{version}", "{filename}",\n             "{wheel_sha}"),')
        for m in wanted(members):
            data = read_member(src, members, m)
            print(f'    ("{release}", "{m}"):\n        "{hashlib.sha256(data).hexdigest()}",')
        print(f"# {src.bytes_read} bytes read", file=sys.stderr)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wheel-dir")
    ap.add_argument("--cache")
    ap.add_argument("--verbose", action="store_true",
                    help="print the notes (guards that change, or disagree with the first appearance)")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--out")
    mode.add_argument("--check")
    mode.add_argument("--pin", nargs="+", metavar="VERSION")
    mode.add_argument("--selftest", action="store_true")
    a = ap.parse_args(argv)
    if a.selftest:
        return selftest()
    start = time.monotonic()
    stats = {"bytes": 0, "cached": 0}
    try:
        if a.pin:
            pin(a.pin, a.wheel_dir)
            return 0
        per_release = {r: read_release(r, a.wheel_dir, a.cache, stats) for r in sorted(RELEASES, key=vkey)}
        table, notes = build(per_release)
    except wc_cache.Offline as e:
        print(f"offline: {e}", file=sys.stderr)
        return 3
    except (OSError, ValueError, Fetched, wc_cache.Failed, urllib.error.URLError) as e:
        print(f"gen_torch_stable_abi: {e}", file=sys.stderr)
        return 1
    if a.verbose:
        for n in notes:
            print("note: " + n, file=sys.stderr)
    doc = document(table)
    took = (f"{time.monotonic() - start:.1f}s, {stats['bytes']} bytes read from wheels, "
            f"{stats['cached']} members from the cache")
    if a.out:
        wc_cache.atomic_write(a.out, render(doc).encode())
        per = {}
        for v in table["shims"].values():
            per[v] = per.get(v, 0) + 1
        print(f"{a.out}: {len(table['shims'])} shims ("
              + ", ".join(f"{v}: {per[v]}" for v in sorted(per, key=vkey))
              + f"), {len(table['removed'])} removed ({took})")
        return 0
    if not wc_cache.check_table(a.check, doc):
        return 1
    print(f"{a.check}: agrees with the torch headers ({len(table['shims'])} shims; {took})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
