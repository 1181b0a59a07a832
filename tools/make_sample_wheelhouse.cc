// Writes the demo wheelhouse: good wheels and wheels broken the ways real releases break.
// Usage: make-sample-wheelhouse DIR [--so FILE.so] [--gpu-so FILE.so]
//   --so      a native library to ship in platform wheels (`make demo` compiles tools/demo_native.c)
//   --gpu-so  a library with a fatbin (`make demo` compiles tools/demo_kernel.cu where nvcc exists)
#include <filesystem>
#include <iostream>
#include <string>

#include "wheel_builder.h"

using wc::testing::WheelBuilder;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: make-sample-wheelhouse DIR [--so FILE.so]\n";
    return 2;
  }
  std::string dir = argv[1];
  std::string so_path, gpu_path;
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--so") so_path = argv[i + 1];
    if (std::string(argv[i]) == "--gpu-so") gpu_path = argv[i + 1];
  }
  std::filesystem::create_directories(dir);
  const std::string init = "def hello():\n    return 'hello'\n";
  std::vector<std::pair<std::string, std::string>> made;  // path, what is wrong

  auto note = [&](const WheelBuilder& b, const std::string& what) { made.emplace_back(b.write(dir), what); };

  note(WheelBuilder("good-pure", "1.0.0").add("good_pure/__init__.py", init).requires_python(">=3.8"),
       "good: pure Python wheel");
  note(WheelBuilder("bad-hash", "2.1.0").add("bad_hash/__init__.py", init).edit_record([](auto& rows) {
    rows[0][1] = "sha256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  }),
       "RECORD hash does not match (WC302)");
  note(WheelBuilder("tag-lies", "2.10.0", "cp312-cp312-manylinux_2_28_x86_64")
           .purelib(false)
           .add("tag_lies/__init__.py", init)
           .wheel_file(
               "Wheel-Version: 1.0\nGenerator: bdist_wheel\nRoot-Is-Purelib: false\nTag: cp312-cp312-linux_x86_64\n"),
       "WHEEL Tag differs from the file name (WC103)");
  note(WheelBuilder("escape-artist", "0.3")
           .add("escape_artist/__init__.py", init)
           .add("../../etc/cron.d/evil", "* * * * * root id\n")
           .add_symlink("escape_artist/passwd", "/etc/passwd"),
       "path traversal and a symlink entry (WC401, WC402)");
  note(WheelBuilder("meta-mismatch", "1.2.0")
           .add("meta_mismatch/__init__.py", init)
           .metadata("Metadata-Version: 2.1\nName: other-name\nVersion: 1.2.1\n"),
       "METADATA Name/Version differ from the file name (WC201)");
  note(WheelBuilder("py-range", "1.0", "cp38-cp38-manylinux_2_17_x86_64")
           .purelib(false)
           .add("py_range/__init__.py", init)
           .requires_python(">=3.10"),
       "Requires-Python excludes the wheel's own cp38 tag (WC203)");
  note(WheelBuilder("crufty", "0.9")
           .add("crufty/__init__.py", init)
           .add("crufty/__pycache__/__init__.cpython-312.pyc", "\x00\x01")
           .add_unrecorded("crufty/secret.txt", "not in RECORD\n"),
       "file missing from RECORD (WC304), bytecode cache (WC706 warning)");
  {
    WheelBuilder b("truncated", "1.0");
    b.add("truncated/__init__.py", init);
    auto bytes = b.build();
    bytes.resize(bytes.size() / 2);
    std::string path = (std::filesystem::path(dir) / b.filename()).string();
    wc::testing::write_file(path, bytes);
    made.emplace_back(path, "download cut in half (WC404)");
  }
  if (!so_path.empty()) {
    auto so = wc::testing::read_file(so_path);
    std::string bytes(so.begin(), so.end());
    note(WheelBuilder("native-ok", "1.0", "cp311-cp311-manylinux_2_28_x86_64")
             .purelib(false)
             .add("native_ok/_core.cpython-311-x86_64-linux-gnu.so", bytes),
         "good: native extension needing GLIBC_2.25, tagged manylinux_2_28");
    note(WheelBuilder("native-old-tag", "1.0", "cp311-cp311-manylinux_2_17_x86_64")
             .purelib(false)
             .add("native_old_tag/_core.cpython-311-x86_64-linux-gnu.so", bytes),
         "native extension needs GLIBC_2.25 but claims manylinux_2_17 (WC502)");
    note(WheelBuilder("native-pure-lie", "1.0").add("native_pure_lie/_core.so", bytes),
         "native library in a py3-none-any wheel (WC105)");
  }
  if (!gpu_path.empty()) {
    auto so = wc::testing::read_file(gpu_path);
    std::string bytes(so.begin(), so.end());
    note(WheelBuilder("gpu-ok", "1.0+cu130", "cp312-cp312-manylinux_2_34_x86_64")
             .purelib(false)
             .add("gpu_ok/lib/libdemo_gpu.so", bytes),
         "good: sm_80/sm_90 SASS + compute_90 PTX, labelled cu130 (the toolkit that built it); try wheelsmoke compat "
         "on it");
    note(WheelBuilder("gpu-mislabelled", "1.0+cu126", "cp312-cp312-manylinux_2_34_x86_64")
             .purelib(false)
             .add("gpu_mislabelled/lib/libdemo_gpu.so", bytes),
         "labelled cu126 but its PTX came from a newer toolkit (WC601)");
  }
  std::cout << "sample wheelhouse in " << dir << ":\n";
  for (const auto& [p, what] : made)
    std::cout << "  " << std::filesystem::path(p).filename().string() << "\n      " << what << "\n";
  return 0;
}
