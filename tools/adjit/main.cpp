// The adjit driver: `adjit compile` prints or dumps pipeline stages, `adjit
// run` executes an entry of a module on arrays given on the command line,
// `adjit aot` exports entries ahead of time, `adjit stages` and `adjit cache`
// list the stages and manage the compile cache. The command line is
// llvm::cl's, so --help, --version and option errors behave as in LLVM's tools.
#include "adjit/Aot.h"
#include "adjit/compiler/CompileCache.h"
#include "adjit/compiler/Program.h"
#include "adjit/runtime/ArraySpec.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Files.h"
#include "adjit/runtime/Npy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace cl = llvm::cl;

// --help lists this category (and --help, --version), not the hundreds of
// options libLLVM and libMLIR register.
cl::OptionCategory adjit_options("adjit options");

cl::SubCommand compile_command(
    "compile", "print one pipeline stage of a module, write it to -o FILE, or dump every stage");
cl::SubCommand run_command(
    "run", "run an entry of a module on arrays given with --arg, print the outputs");
cl::SubCommand aot_command(
    "aot", "compile entries ahead of time into an object (or static library) and a C header");
cl::SubCommand stages_command("stages", "list the pipeline's stages in order");
cl::SubCommand cache_command(
    "cache", "show (info) or delete (clear) the entries of the on-disk compile cache");

// Options of several commands.
cl::opt<std::string> input_file(cl::Positional, cl::desc("<FILE.mlir>"), cl::sub(compile_command),
                                cl::sub(run_command), cl::sub(aot_command), cl::cat(adjit_options));
cl::opt<adjit::Device::Kind> target(
    "target", cl::desc("what the module is compiled for"),
    cl::values(clEnumValN(adjit::Device::Kind::cpu, "cpu", "this machine's CPU (default)"),
               clEnumValN(adjit::Device::Kind::cuda, "cuda", "an NVIDIA GPU (not for aot)")),
    cl::init(adjit::Device::Kind::cpu), cl::sub(compile_command), cl::sub(aot_command),
    cl::sub(stages_command), cl::cat(adjit_options));
cl::opt<std::string> dump_dir("dump-dir", cl::value_desc("DIR"),
                              cl::desc("write every stage to DIR as numbered files"),
                              cl::sub(compile_command), cl::sub(aot_command),
                              cl::cat(adjit_options));

// The CPU that cpu code is for (compile and aot; `run` runs on this one).
cl::opt<std::string> target_cpu("target-cpu", cl::value_desc("CPU"),
                                cl::desc("the LLVM CPU to compile for, such as x86-64-v3 "
                                         "(default: this machine's)"),
                                cl::sub(compile_command), cl::sub(aot_command),
                                cl::cat(adjit_options));
cl::opt<std::string> target_features("mattr", cl::value_desc("FEATURES"),
                                     cl::desc("LLVM target features, such as +avx2,+fma"),
                                     cl::sub(compile_command), cl::sub(aot_command),
                                     cl::cat(adjit_options));
cl::opt<std::string> tune_cpu("tune-cpu", cl::value_desc("CPU"),
                              cl::desc("the LLVM CPU to tune for, as clang's -mtune, such as\n"
                                       "znver4 (default: the target CPU's, else this machine's)"),
                              cl::sub(compile_command), cl::sub(aot_command),
                              cl::cat(adjit_options));

// adjit compile
cl::opt<std::string> emit(
    "emit", cl::value_desc("STAGE"),
    cl::desc("the stage to print (default: llvm-ir, or ptx for --target=cuda);\n"
             "`adjit stages` lists them; obj and cubin need -o FILE;\n"
             "memory-plan prints each function's temporaries (lifetimes,\n"
             "sizes, peak) and a gradient's residuals"),
    cl::sub(compile_command), cl::cat(adjit_options));
cl::opt<std::string> compile_output("o", cl::value_desc("FILE"),
                                    cl::desc("write the stage to FILE instead of printing it (-: print it)"),
                                    cl::sub(compile_command), cl::cat(adjit_options));
cl::opt<std::string> gpu_arch("gpu-arch", cl::value_desc("sm_NN"),
                              cl::desc("the GPU architecture of --target=cuda kernels"),
                              cl::init(adjit::CompileOptions{}.gpu_arch), cl::sub(compile_command),
                              cl::cat(adjit_options));
cl::opt<bool> print_ir_after_all("print-ir-after-all",
                                 cl::desc("print the IR after every pass, to stderr"),
                                 cl::sub(compile_command), cl::cat(adjit_options));
cl::opt<bool> timing("timing", cl::desc("report the passes' times, then LLVM's share, to stderr"),
                     cl::sub(compile_command), cl::cat(adjit_options));
cl::opt<bool> no_remat("no-remat",
                       cl::desc("gradients keep every residual instead of recomputing cheap\n"
                                "elementwise ones in the backward pass"),
                       cl::sub(compile_command), cl::sub(run_command), cl::sub(aot_command),
                       cl::cat(adjit_options));
cl::opt<bool> no_vector_math_library(
    "no-vector-math-library",
    cl::desc("f64 transcendentals and f32 pow call libm one element at a time\n"
             "instead of glibc's vector math library (libmvec)"),
    cl::sub(compile_command), cl::sub(run_command), cl::sub(aot_command), cl::cat(adjit_options));

// adjit run
cl::opt<std::string> run_entry(
    "entry", cl::value_desc("NAME"),
    cl::desc("the public function to run (needed when the module has several)"),
    cl::sub(run_command), cl::cat(adjit_options));
cl::list<std::string> array_specs(
    "arg", cl::value_desc("SPEC"),
    cl::desc("an input, one per argument of the entry, in order:\n"
             "f32[2,2]=1,2,3,4   f32[1000]=randn:7   f32[8]=uniform:3   i32[]=3\n"
             "f64[3,3]=zeros|ones   f32[4]=fill:2.5   i64[5]=iota   @x.npy | x.npy"),
    cl::sub(run_command), cl::cat(adjit_options));
cl::opt<std::string> out_dir("out", cl::value_desc("DIR"),
                             cl::desc("also write the outputs as DIR/out0.npy, out1.npy, ..."),
                             cl::sub(run_command), cl::cat(adjit_options));
cl::opt<std::string> device_name("device", cl::value_desc("cpu|cuda|cuda:N"),
                                 cl::desc("where the entry runs (default: cpu)"), cl::init("cpu"),
                                 cl::sub(run_command), cl::cat(adjit_options));

// adjit aot
cl::list<std::string> aot_entries(
    "entry", cl::value_desc("NAME"),
    cl::desc("a public function to export (repeatable; default: all of them)"),
    cl::sub(aot_command), cl::cat(adjit_options));
cl::opt<std::string> aot_output(
    "o", cl::value_desc("DIR"),
    cl::desc("the directory of NAME.o (or libNAME.a) and NAME.h; the object\n"
             "links with libadjit_aot_runtime.a and -lm, no LLVM\n"
             "(docs/guide/aot.md)"),
    cl::sub(aot_command), cl::cat(adjit_options));
cl::opt<std::string> library_name(
    "name", cl::value_desc("NAME"),
    cl::desc("the files' stem (default: the entry's name, or the file's for several entries)"),
    cl::sub(aot_command), cl::cat(adjit_options));
cl::opt<bool> static_library("static-library", cl::desc("write libNAME.a instead of NAME.o"),
                             cl::sub(aot_command), cl::cat(adjit_options));
cl::opt<int> aot_threads(
    "threads", cl::value_desc("N"), cl::init(1),
    cl::desc("threads a call may use: 1 (default) the calling thread, 0 ADJIT_NUM_THREADS\n"
             "else every core at run time, N at most N (a pool the runtime keeps)"),
    cl::sub(aot_command), cl::cat(adjit_options));

// adjit cache
cl::opt<std::string> cache_action(cl::Positional, cl::desc("<info|clear>"), cl::sub(cache_command),
                                  cl::cat(adjit_options));
cl::opt<std::string> cache_dir("dir", cl::value_desc("DIR"),
                               cl::desc("the cache's directory (default: $ADJIT_CACHE_DIR)"),
                               cl::sub(cache_command), cl::cat(adjit_options));

bool given(const cl::Option& option) { return option.getNumOccurrences() > 0; }

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
  throw adjit::Error("unknown device '" + name + "'; devices: cpu, cuda, cuda:N");
}

void require_input_file(const cl::SubCommand& command) {
  if (input_file.empty()) throw adjit::Error(command.getName().str() + " needs an input file");
}

int compile() {
  require_input_file(compile_command);
  if (target == adjit::Device::Kind::cuda &&
      (given(target_cpu) || given(target_features) || given(tune_cpu)))
    throw adjit::Error("--target-cpu, --mattr and --tune-cpu choose the CPU of --target=cpu "
                       "code; --target=cuda code is for --gpu-arch");
  adjit::CompileOptions options;
  options.target = target;
  options.gpu_arch = gpu_arch;
  options.print_ir_after_all = print_ir_after_all;
  options.timing = timing;
  options.rematerialize = !no_remat;
  options.vector_math_library = !no_vector_math_library;
  options.target_cpu = target_cpu;
  options.target_features = target_features;
  options.tune_cpu = tune_cpu;
  adjit::Program program = adjit::Program::parse_file(input_file, options);
  if (given(dump_dir)) {
    program.dump(dump_dir);
    // Dumping alone, unless a stage or an output file is asked for too.
    if (!given(emit) && !given(compile_output)) return 0;
  }
  bool cuda = target == adjit::Device::Kind::cuda;
  std::string stage = given(emit) ? emit.getValue() : cuda ? "ptx" : "llvm-ir";
  if ((stage == "obj" || stage == "cubin") && !given(compile_output))
    throw adjit::Error("--emit=" + stage + " writes binary: give -o FILE (-o - for stdout)");
  std::string text = program.ir(stage);
  if (given(compile_output) && compile_output != "-") adjit::write_file(compile_output, text);
  else fmt::print("{}", text);
  return 0;
}

int run() {
  require_input_file(run_command);
  adjit::Device device = parse_device(device_name);
  std::vector<adjit::Array> inputs;
  for (const std::string& spec : array_specs) inputs.push_back(adjit::parse_array_spec(spec));
  adjit::CompileOptions options;
  options.target = device.kind();
  options.rematerialize = !no_remat;
  options.vector_math_library = !no_vector_math_library;
  adjit::Executable executable = adjit::Program::parse_file(input_file, options).compile(device);
  for (adjit::Array& input : inputs) input = input.to(device);
  std::string entry = run_entry;
  if (!given(run_entry)) {
    const auto& entries = executable.entries();
    if (entries.empty()) throw adjit::Error("the module defines no public function to run");
    if (entries.size() > 1) {
      std::vector<std::string_view> names;
      for (const adjit::Signature& s : entries) names.push_back(s.name);
      throw adjit::Error(fmt::format(
          "the module has several public functions; choose one with --entry: {}",
          fmt::join(names, " ")));
    }
    entry = entries.front().name;
  }
  if (given(out_dir))  // all or nothing: refused before anything is printed or written
    for (const adjit::Signature& s : executable.entries())
      for (size_t i = 0; s.name == entry && i < s.outputs.size(); ++i)
        if (!adjit::has_npy_dtype(s.outputs[i].dtype))
          throw adjit::Error(fmt::format(
              "--out cannot write out{} ({}): NumPy has no bf16; run without --out to print "
              "it, or return it cast to f32",
              i, s.outputs[i].str()));
  std::vector<adjit::Array> outputs = executable.run(entry, inputs);
  if (given(out_dir)) {
    std::error_code error;
    std::filesystem::create_directories(out_dir.getValue(), error);
    if (error)
      throw adjit::Error(fmt::format("cannot create the --out directory '{}': {}",
                                     out_dir.getValue(), error.message()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    fmt::print("out{} = {}\n", i, adjit::to_string(outputs[i]));
    if (given(out_dir))
      adjit::save_npy(outputs[i], (std::filesystem::path(out_dir.getValue()) /
                                   fmt::format("out{}.npy", i)).string());
  }
  return 0;
}

int aot() {
  if (target != adjit::Device::Kind::cpu)
    throw adjit::Error("aot compiles for the cpu target only; GPU kernels are not exported "
                       "yet (adjit compile --target=cuda --emit=cubin writes them)");
  require_input_file(aot_command);
  if (!given(aot_output)) throw adjit::Error("aot needs an output directory: -o DIR");
  adjit::CompileOptions compile_options;
  compile_options.rematerialize = !no_remat;
  compile_options.vector_math_library = !no_vector_math_library;
  adjit::Program program = adjit::Program::parse_file(input_file, compile_options);
  adjit::aot::AotOptions options;
  options.output_dir = aot_output;
  options.target_cpu = target_cpu;
  options.target_features = target_features;
  options.tune_cpu = tune_cpu;
  options.static_library = static_library;
  options.threads = aot_threads;
  options.dump_dir = dump_dir;
  std::vector<std::string> entries(aot_entries.begin(), aot_entries.end());
  options.name = given(library_name) ? library_name.getValue()
                 : entries.size() == 1 ? entries.front()
                 : program.signatures().size() == 1 && entries.empty()
                     ? program.signatures().front().name
                     : std::filesystem::path(input_file.getValue()).stem().string();
  adjit::aot::AotResult result = adjit::aot::write(program, options, entries);
  for (const adjit::Signature& s : result.functions) fmt::print("exported {}\n", s.name);
  fmt::print("wrote {}\nwrote {}\n", result.object_path, result.header_path);
  return 0;
}

int stages() {
  for (const std::string& stage : adjit::stage_names(target)) fmt::print("{}\n", stage);
  return 0;
}

int cache() {
  if (!given(cache_action)) throw adjit::Error("cache needs 'info' or 'clear'");
  if (cache_action != "info" && cache_action != "clear")
    throw adjit::Error(fmt::format("unknown cache action '{}'; actions: info, clear",
                                   cache_action.getValue()));
  std::string dir =
      given(cache_dir) ? cache_dir.getValue() : adjit::CompileCache::directory_from_environment();
  if (dir.empty()) throw adjit::Error("no cache directory: give --dir DIR or set ADJIT_CACHE_DIR");
  // Looking at a cache makes none (CompileCache would create the directory).
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error))
    throw adjit::Error(fmt::format("'{}' is not a compile cache directory: {}", dir,
                                   error ? error.message() : "no such directory"));
  adjit::CompileCache cache(dir);
  if (cache_action == "clear") {
    cache.clear();
    fmt::print("cleared {}\n", dir);
    return 0;
  }
  adjit::CompileCache::Info info = cache.info();
  fmt::print("directory: {}\nentries: {}\nbytes: {}\nlimit: {} (ADJIT_CACHE_MAX_MB)\n", info.dir,
             info.entries, info.bytes, info.max_bytes);
  return 0;
}

// llvm::cl reads a word "@FILE" as a response file, which would swallow the
// spec of `--arg @x.npy`: a value in the word after its option is attached to
// the option ("--arg=@x.npy"), which llvm::cl reads as the same value.
// Response files are expanded here first (their words spliced in place, as
// llvm::cl does), so that the same holds inside them.
std::vector<std::string> attach_at_sign_values(int argc, char** argv) {
  std::vector<std::string> words(argv, argv + argc);
  if (argc < 2) return words;
  cl::SubCommand* command = &cl::SubCommand::getTopLevel();
  for (cl::SubCommand* registered : cl::getRegisteredSubcommands())
    if (registered->getName() == argv[1]) command = registered;
  const llvm::StringMap<cl::Option*>& options = cl::getRegisteredOptions(*command);
  auto takes_value = [&](const std::string& word) {
    llvm::StringRef option_name = llvm::StringRef(word).ltrim('-');
    if (!word.starts_with('-') || option_name.contains('=')) return false;
    auto option = options.find(option_name);
    return option != options.end() && option->second->getValueExpectedFlag() == cl::ValueRequired;
  };
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  int expansions = 0;
  for (size_t i = 1; i < words.size() && words[i] != "--"; ++i) {
    if (words[i].starts_with('@') && expansions < 64) {
      auto file = llvm::MemoryBuffer::getFile(words[i].substr(1));
      if (!file) {  // llvm::cl would take it for a positional argument
        fmt::print(stderr, "adjit: error: cannot read the response file '{}': {}\n",
                   words[i].substr(1), file.getError().message());
        std::exit(1);
      }
      llvm::SmallVector<const char*, 16> tokens;
      cl::TokenizeGNUCommandLine((*file)->getBuffer(), saver, tokens);
      words.erase(words.begin() + static_cast<std::ptrdiff_t>(i));
      words.insert(words.begin() + static_cast<std::ptrdiff_t>(i), tokens.begin(), tokens.end());
      ++expansions;
      --i;  // the spliced words are read next, nested response files too
      continue;
    }
    if (i + 1 < words.size() && words[i + 1].starts_with('@') && takes_value(words[i])) {
      words[i] += "=" + words[i + 1];
      words.erase(words.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    }
  }
  return words;
}

}  // namespace

int main(int argc, char** argv) {
  // `adjit -h` printed the usage before llvm::cl, which has only --help.
  cl::alias help_short("h", cl::desc("Alias for --help"),
                       cl::aliasopt(*cl::getRegisteredOptions()["help"]));
  // Hides libLLVM's options, and -h, from every command's help.
  for (cl::SubCommand* command : cl::getRegisteredSubcommands())
    cl::HideUnrelatedOptions(adjit_options, *command);
  cl::SetVersionPrinter([](llvm::raw_ostream& out) { out << "adjit " << ADJIT_VERSION << "\n"; });

  std::vector<std::string> words = attach_at_sign_values(argc, argv);
  std::vector<const char*> word_pointers;
  for (const std::string& word : words) word_pointers.push_back(word.c_str());
  // Exits with status 1 after an option error, 0 after --help or --version.
  cl::ParseCommandLineOptions(
      int(word_pointers.size()), word_pointers.data(),
      "adjit compiles modules of the adjit dialect (FILE.mlir) through its pipeline,\n"
      "runs them, or exports them ahead of time (docs/guide/cli.md).\n");

  try {
    if (compile_command) return compile();
    if (run_command) return run();
    if (aot_command) return aot();
    if (stages_command) return stages();
    if (cache_command) return cache();
    // No command, as before llvm::cl: the help, as a mistake.
    cl::PrintHelpMessage(/*Hidden=*/false, /*Categorized=*/true);
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "adjit: error: {}\n", e.what());
    return 1;
  }
}
