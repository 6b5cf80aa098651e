// The adjit driver: `adjit compile` prints or dumps pipeline stages, `adjit
// run` executes an entry of a module on arrays given on the command line.
#include "adjit/Aot.h"
#include "adjit/compiler/CompileCache.h"
#include "adjit/compiler/Program.h"
#include "adjit/runtime/ArraySpec.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Npy.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage = R"(usage:
  adjit compile FILE.mlir [--emit=STAGE] [-o FILE] [--dump-dir DIR]
                          [--target=cpu|cuda] [--gpu-arch=sm_90]
                          [--print-ir-after-all] [--timing]
  adjit run FILE.mlir [--entry NAME] [--arg SPEC]... [--out DIR]
                      [--device cpu|cuda|cuda:N]
  adjit aot FILE.mlir [--entry NAME]... -o DIR [--name NAME]
                      [--target-cpu=CPU] [--mattr=FEATURES] [--static-library]
                      [--dump-dir DIR]
  adjit stages [--target=cpu|cuda]
  adjit cache info|clear [--dir DIR]

compile  prints one stage (default: llvm-ir, or ptx for --target=cuda) or
         writes it to -o FILE; --dump-dir writes every stage as numbered files.
         --emit=memory-plan prints each function's temporaries (lifetimes,
         sizes, peak) and a gradient's residuals instead.
         --target=cuda compiles kernels for an NVIDIA GPU of --gpu-arch.
run      runs an entry (needed when the module has several public functions)
         on one --arg per input and prints the outputs; --out DIR also writes
         them as out0.npy, out1.npy, ...; --device runs it on a GPU.
aot      compiles entries (default: every public function) ahead of time into
         DIR/NAME.o (or libNAME.a) and the C header DIR/NAME.h; NAME defaults
         to the entry's name, or the file's for several entries. The object
         links with libadjit_aot_runtime.a and -lm, no LLVM (docs/guide/aot.md).
         --target-cpu and --mattr take LLVM names (x86-64-v3, +avx2,+fma).
cache    the on-disk compile cache (DIR, else $ADJIT_CACHE_DIR): its entries
         and size, or delete them.
SPEC     f32[2,2]=1,2,3,4   f32[1000]=randn:7   f32[8]=uniform:3   i32[]=3
         f64[3,3]=zeros|ones   f32[4]=fill:2.5   i64[5]=iota   @x.npy | x.npy
)";

struct UsageError : adjit::Error {
  using adjit::Error::Error;
};

// Command-line words after the subcommand, consumed left to right.
class Arguments {
 public:
  Arguments(int argc, char** argv, int first) : words_(argv + first, argv + argc) {}

  bool empty() const { return position_ >= words_.size(); }
  std::string next() { return words_[position_++]; }

  // Accepts "--name value" and "--name=value".
  std::optional<std::string> option_value(const std::string& word, const std::string& name) {
    if (word == name) {
      if (empty()) throw UsageError(name + " needs a value");
      return next();
    }
    if (word.rfind(name + "=", 0) == 0) return word.substr(name.size() + 1);
    return std::nullopt;
  }

 private:
  std::vector<std::string> words_;
  size_t position_ = 0;
};

adjit::Device::Kind parse_target(const std::string& name) {
  if (name == "cpu") return adjit::Device::Kind::cpu;
  if (name == "cuda") return adjit::Device::Kind::cuda;
  throw UsageError("unknown target '" + name + "'; targets: cpu, cuda");
}

// "cpu", "cuda" (GPU 0) or "cuda:N".
adjit::Device parse_device(const std::string& name) {
  if (name == "cpu") return adjit::Device::cpu();
  if (name == "cuda") return adjit::Device::cuda(0);
  if (name.rfind("cuda:", 0) == 0) {
    std::string index = name.substr(5);
    if (!index.empty() && index.size() < 4 &&
        index.find_first_not_of("0123456789") == std::string::npos)
      return adjit::Device::cuda(std::stoi(index));
  }
  throw UsageError("unknown device '" + name + "'; devices: cpu, cuda, cuda:N");
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out) throw adjit::Error("cannot write '" + path + "'");
}

int compile_command(Arguments args) {
  std::optional<std::string> file, emit, output, dump_dir;
  adjit::CompileOptions options;
  while (!args.empty()) {
    std::string word = args.next();
    if (auto v = args.option_value(word, "--emit")) emit = v;
    else if (auto v = args.option_value(word, "-o")) output = v;
    else if (auto v = args.option_value(word, "--dump-dir")) dump_dir = v;
    else if (auto v = args.option_value(word, "--target")) options.target = parse_target(*v);
    else if (auto v = args.option_value(word, "--gpu-arch")) options.gpu_arch = *v;
    else if (word == "--print-ir-after-all") options.print_ir_after_all = true;
    else if (word == "--timing") options.timing = true;
    else if (word.rfind("-", 0) == 0) throw UsageError("unknown option '" + word + "'");
    else if (file) throw UsageError("one input file at a time, got '" + *file + "' and '" + word + "'");
    else file = word;
  }
  if (!file) throw UsageError("compile needs an input file");
  adjit::Program program = adjit::Program::parse_file(*file, options);
  if (dump_dir) {
    program.dump(*dump_dir);
    if (!emit) return 0;
  }
  bool cuda = options.target == adjit::Device::Kind::cuda;
  std::string stage = emit.value_or(cuda ? "ptx" : "llvm-ir");
  if ((stage == "obj" || stage == "cubin") && !output)
    throw UsageError("--emit=" + stage + " writes binary: give -o FILE");
  std::string text = program.ir(stage);
  if (output) write_file(*output, text);
  else std::cout << text;
  return 0;
}

int aot_command(Arguments args) {
  std::optional<std::string> file, output, name;
  std::vector<std::string> entries;
  adjit::aot::AotOptions options;
  while (!args.empty()) {
    std::string word = args.next();
    if (auto v = args.option_value(word, "--entry")) entries.push_back(*v);
    else if (auto v = args.option_value(word, "-o")) output = v;
    else if (auto v = args.option_value(word, "--name")) name = v;
    else if (auto v = args.option_value(word, "--target-cpu")) options.target_cpu = *v;
    else if (auto v = args.option_value(word, "--mattr")) options.target_features = *v;
    else if (auto v = args.option_value(word, "--dump-dir")) options.dump_dir = *v;
    else if (auto v = args.option_value(word, "--target")) {
      if (parse_target(*v) != adjit::Device::Kind::cpu)
        throw UsageError("aot compiles for the cpu target only; GPU kernels are not exported "
                         "yet (adjit compile --target=cuda --emit=cubin writes them)");
    } else if (word == "--static-library") options.static_library = true;
    else if (word.rfind("-", 0) == 0) throw UsageError("unknown option '" + word + "'");
    else if (file) throw UsageError("one input file at a time, got '" + *file + "' and '" + word + "'");
    else file = word;
  }
  if (!file) throw UsageError("aot needs an input file");
  if (!output) throw UsageError("aot needs an output directory: -o DIR");
  adjit::Program program = adjit::Program::parse_file(*file);
  options.output_dir = *output;
  options.name = name ? *name
                      : entries.size() == 1 ? entries.front()
                      : program.signatures().size() == 1 && entries.empty()
                          ? program.signatures().front().name
                          : std::filesystem::path(*file).stem().string();
  adjit::aot::AotResult result = adjit::aot::write(program, options, entries);
  for (const adjit::Signature& s : result.functions) std::cout << "exported " << s.name << "\n";
  std::cout << "wrote " << result.object_path << "\nwrote " << result.header_path << "\n";
  return 0;
}

int cache_command(Arguments args) {
  if (args.empty()) throw UsageError("cache needs 'info' or 'clear'");
  std::string action = args.next();
  if (action != "info" && action != "clear")
    throw UsageError("unknown cache action '" + action + "'; actions: info, clear");
  std::string dir = adjit::CompileCache::directory_from_environment();
  while (!args.empty()) {
    std::string word = args.next();
    if (auto v = args.option_value(word, "--dir")) dir = *v;
    else throw UsageError("unknown option '" + word + "'");
  }
  if (dir.empty()) throw UsageError("no cache directory: give --dir DIR or set ADJIT_CACHE_DIR");
  adjit::CompileCache cache(dir);
  if (action == "clear") {
    cache.clear();
    std::cout << "cleared " << dir << "\n";
    return 0;
  }
  adjit::CompileCache::Info info = cache.info();
  std::cout << "directory: " << info.dir << "\nentries: " << info.entries
            << "\nbytes: " << info.bytes << "\nlimit: " << info.max_bytes
            << " (ADJIT_CACHE_MAX_MB)\n";
  return 0;
}

int run_command(Arguments args) {
  std::optional<std::string> file, entry, out_dir;
  std::vector<adjit::Array> inputs;
  adjit::Device device = adjit::Device::cpu();
  while (!args.empty()) {
    std::string word = args.next();
    if (auto v = args.option_value(word, "--entry")) entry = v;
    else if (auto v = args.option_value(word, "--arg")) inputs.push_back(adjit::parse_array_spec(*v));
    else if (auto v = args.option_value(word, "--out")) out_dir = v;
    else if (auto v = args.option_value(word, "--device")) device = parse_device(*v);
    else if (word.rfind("-", 0) == 0) throw UsageError("unknown option '" + word + "'");
    else if (file) throw UsageError("one input file at a time, got '" + *file + "' and '" + word + "'");
    else file = word;
  }
  if (!file) throw UsageError("run needs an input file");
  adjit::CompileOptions options;
  options.target = device.kind();
  adjit::Executable executable = adjit::Program::parse_file(*file, options).compile(device);
  for (adjit::Array& input : inputs) input = input.to(device);
  if (!entry) {
    const auto& entries = executable.entries();
    if (entries.empty()) throw adjit::Error("the module defines no public function to run");
    if (entries.size() > 1) {
      std::string names;
      for (const adjit::Signature& s : entries) names += " " + s.name;
      throw UsageError("the module has several public functions; choose one with --entry:" +
                       names);
    }
    entry = entries.front().name;
  }
  std::vector<adjit::Array> outputs = executable.run(*entry, inputs);
  if (out_dir) std::filesystem::create_directories(*out_dir);
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << "out" << i << " = " << outputs[i] << "\n";
    if (out_dir)
      adjit::save_npy(outputs[i], (std::filesystem::path(*out_dir) /
                                   ("out" + std::to_string(i) + ".npy")).string());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << kUsage;
    return argc < 2 ? 1 : 0;
  }
  std::string command = argv[1];
  try {
    if (command == "compile") return compile_command(Arguments(argc, argv, 2));
    if (command == "run") return run_command(Arguments(argc, argv, 2));
    if (command == "cache") return cache_command(Arguments(argc, argv, 2));
    if (command == "aot") return aot_command(Arguments(argc, argv, 2));
    if (command == "stages") {
      Arguments args(argc, argv, 2);
      adjit::Device::Kind target = adjit::Device::Kind::cpu;
      while (!args.empty()) {
        std::string word = args.next();
        if (auto v = args.option_value(word, "--target")) target = parse_target(*v);
        else throw UsageError("unknown option '" + word + "'");
      }
      for (const std::string& stage : adjit::stage_names(target)) std::cout << stage << "\n";
      return 0;
    }
    throw UsageError("unknown command '" + command + "'");
  } catch (const UsageError& e) {
    std::cerr << "adjit: error: " << e.what() << "\n\n" << kUsage;
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "adjit: error: " << e.what() << "\n";
    return 1;
  }
}
