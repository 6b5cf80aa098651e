// The `adjit` driver as a user runs it: every mistake on the command line or
// in the input exits with status 1 and one clear message (never a crash), the
// command line is llvm::cl's (--help, --version, its option errors), and
// `adjit run` computes what an independent double-precision implementation
// computes.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "adjit/runtime/Array.h"
#include "adjit/runtime/ArraySpec.h"
#include "adjit/runtime/Npy.h"
#include "scratch_dir.h"

using Catch::Contains;
using Catch::Matches;
using Catch::StartsWith;

namespace {

const std::string kMlp = std::string(ADJIT_SOURCE_DIR) + "/examples/mlp.mlir";

// Arguments for examples/mlp.mlir with the right types.
const std::vector<std::string> kMlpArgs = {
    "--arg", "f32[4,8]=randn:1",  "--arg", "f32[8,16]=randn:2", "--arg", "f32[16]=randn:3",
    "--arg", "f32[16,3]=randn:4", "--arg", "f32[3]=randn:5"};

struct CliResult {
  int exit_code = -1;  // -1 when the process did not exit normally
  int signal = 0;      // the terminating signal, if any
  std::string output;  // stdout and stderr together
};

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Runs the adjit CLI with `args` through the shell, capturing stdout+stderr.
CliResult run_cli(const std::vector<std::string>& args) {
  std::string command = shell_quote(ADJIT_CLI);
  for (const std::string& arg : args) command += " " + shell_quote(arg);
  command += " 2>&1";
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  int status = pclose(pipe);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
    // The shell reports a child killed by a signal as 128 + signal.
    if (result.exit_code > 128) result.signal = result.exit_code - 128;
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The common shape of every failure but a mistake in the options
// (require_option_error): status 1, no crash, "adjit: error:".
void require_clean_failure(const CliResult& r) {
  INFO(r.output);
  CHECK(r.signal == 0);
  REQUIRE(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("adjit: error: "));
  // One message, not a stack dump.
  CHECK_THAT(r.output, !Contains("Stack dump") && !Contains("PLEASE submit a bug report"));
}

// A mistake in the options, as llvm::cl reports it: status 1, no crash,
// "adjit: " and llvm::cl's `message`.
void require_option_error(const CliResult& r, const std::string& message) {
  INFO(r.output);
  CHECK(r.signal == 0);
  REQUIRE(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("adjit: " + message));
  CHECK_THAT(r.output, !Contains("Stack dump") && !Contains("PLEASE submit a bug report"));
}

// A fresh directory per use, removed afterwards.
using TempDirectory = ScratchDir;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A module with two public functions.
constexpr const char* kTwoEntries = R"(func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = adjit.exp %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @second(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = adjit.sin %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
)";

}  // namespace

//===----------------------------------------------------------------------===//
// Input files
//===----------------------------------------------------------------------===//

TEST_CASE("cli: a missing input file is reported with its path", "[cli]") {
  const std::string path = "/nonexistent/adjit/missing.mlir";
  for (const char* command : {"run", "compile"}) {
    CliResult r = run_cli({command, path});
    require_clean_failure(r);
    CHECK_THAT(r.output, Contains("cannot read '" + path + "'"));
    CHECK_THAT(r.output, Contains("No such file or directory"));
  }
}

TEST_CASE("cli: an unreadable input file is reported with its path", "[cli]") {
  if (geteuid() == 0) {
    WARN("running as root: permissions do not stop reading, skipped");
    return;
  }
  TempDirectory dir;
  std::string path = dir.write("secret.mlir", kTwoEntries);
  REQUIRE(chmod(path.c_str(), 0) == 0);
  CliResult r = run_cli({"compile", path});
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains("cannot read '" + path + "'"));
  CHECK_THAT(r.output, Contains("Permission denied"));
}

TEST_CASE("cli: a directory given as the input file fails cleanly", "[cli]") {
  TempDirectory dir;
  for (const char* command : {"run", "compile"}) {
    CliResult r = run_cli({command, dir.path()});
    require_clean_failure(r);
  }
}

TEST_CASE("cli: a directory given as the input file is named in the message", "[cli]") {
  TempDirectory dir;
  CliResult r = run_cli({"compile", dir.path()});
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains("'" + dir.path() + "'"));
}

TEST_CASE("cli: invalid IR shows MLIR's diagnostic with its position", "[cli]") {
  TempDirectory dir;
  SECTION("a verifier error") {
    std::string path = dir.write("bad_verify.mlir",
                                 "func.func @f(%x: tensor<4xi1>) -> tensor<4xi1> {\n"
                                 "  // booleans are not ordered\n"
                                 "  %0 = adjit.compare lt, %x, %x : tensor<4xi1>\n"
                                 "  return %0 : tensor<4xi1>\n"
                                 "}\n");
    for (const char* command : {"run", "compile"}) {
      CliResult r = run_cli({command, path});
      require_clean_failure(r);
      CHECK_THAT(r.output, Contains("invalid IR in " + path));
      CHECK_THAT(r.output, Contains("'adjit.compare' op booleans support only eq and ne, not lt"));
      CHECK_THAT(r.output, Contains(path));
      CHECK_THAT(r.output, Contains(":3:8"));
    }
  }
  SECTION("a parse error") {
    std::string path = dir.write("bad_parse.mlir",
                                 "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                                 "  %0 = adjit.bogus %x : tensor<4xf32>\n"
                                 "  return %0 : tensor<4xf32>\n"
                                 "}\n");
    CliResult r = run_cli({"compile", path, "--emit=traced"});
    require_clean_failure(r);
    CHECK_THAT(r.output, Contains("custom op 'adjit.bogus' is unknown"));
    CHECK_THAT(r.output, Contains(":2:8"));
  }
  SECTION("a type constraint") {
    std::string path = dir.write("bad_type.mlir",
                                 "func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {\n"
                                 "  %0 = adjit.exp %x : tensor<4xi32>\n"
                                 "  return %0 : tensor<4xi32>\n"
                                 "}\n");
    CliResult r = run_cli({"run", path, "--arg", "i32[4]=zeros"});
    require_clean_failure(r);
    CHECK_THAT(r.output, Contains("'adjit.exp' op operand #0 must be"));
    CHECK_THAT(r.output, Contains(":2:8"));
  }
}

// Positions print as compilers print them, so editors can jump to them.
TEST_CASE("cli: invalid IR is reported as FILE:LINE:COL: error:", "[cli]") {
  TempDirectory dir;
  std::string path = dir.write("bad.mlir",
                               "func.func @f(%x: tensor<4xi1>) -> tensor<4xi1> {\n"
                               "\n"
                               "  %0 = adjit.compare lt, %x, %x : tensor<4xi1>\n"
                               "  return %0 : tensor<4xi1>\n"
                               "}\n");
  CliResult r = run_cli({"compile", path});
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains(path + ":3:8: error: 'adjit.compare' op booleans support only"));
}

//===----------------------------------------------------------------------===//
// Entries and arguments of `adjit run`
//===----------------------------------------------------------------------===//

TEST_CASE("cli: an unknown entry lists the known entries", "[cli]") {
  TempDirectory dir;
  std::string path = dir.write("two.mlir", kTwoEntries);
  CliResult r = run_cli({"run", path, "--entry", "third", "--arg", "f32[2]=1,2"});
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains("unknown entry 'third'"));
  CHECK_THAT(r.output, Contains("first"));
  CHECK_THAT(r.output, Contains("second"));

  CliResult mlp = run_cli(concat({"run", kMlp, "--entry", "nope"}, kMlpArgs));
  require_clean_failure(mlp);
  CHECK_THAT(mlp.output, Contains("unknown entry 'nope'"));
  CHECK_THAT(mlp.output, Contains("mlp"));
}

TEST_CASE("cli: several public functions need --entry", "[cli]") {
  TempDirectory dir;
  std::string path = dir.write("two.mlir", kTwoEntries);
  CliResult r = run_cli({"run", path, "--arg", "f32[2]=1,2"});
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains("--entry"));

  CliResult chosen = run_cli({"run", path, "--entry", "second", "--arg", "f32[2]=0,0"});
  REQUIRE(chosen.exit_code == 0);
  CHECK_THAT(chosen.output, Contains("out0 = f32[2] [0, 0]"));
}

TEST_CASE("cli: the wrong number of arguments is reported", "[cli]") {
  CliResult few = run_cli({"run", kMlp, "--arg", "f32[4,8]=zeros"});
  require_clean_failure(few);
  CHECK_THAT(few.output, Contains("entry 'mlp' takes 5 inputs, got 1"));

  CliResult none = run_cli({"run", kMlp});
  require_clean_failure(none);
  CHECK_THAT(none.output, Contains("takes 5 inputs, got 0"));

  CliResult many = run_cli(concat(concat({"run", kMlp}, kMlpArgs), {"--arg", "f32[3]=zeros"}));
  require_clean_failure(many);
  CHECK_THAT(many.output, Contains("takes 5 inputs, got 6"));
}

TEST_CASE("cli: an argument of the wrong shape is reported", "[cli]") {
  std::vector<std::string> args = kMlpArgs;
  args[7] = "f32[16,4]=zeros";  // w2, input 3
  CliResult r = run_cli(concat({"run", kMlp}, args));
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains("input 3 must be f32[16,3], got f32[16,4]"));

  args = kMlpArgs;
  args[1] = "f32[32]=zeros";  // same element count as f32[4,8], wrong rank
  CliResult rank = run_cli(concat({"run", kMlp}, args));
  require_clean_failure(rank);
  CHECK_THAT(rank.output, Contains("input 0 must be f32[4,8], got f32[32]"));
}

TEST_CASE("cli: an argument of the wrong dtype is reported", "[cli]") {
  std::vector<std::string> args = kMlpArgs;
  args[1] = "f64[4,8]=zeros";
  CliResult r = run_cli(concat({"run", kMlp}, args));
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains("input 0 must be f32[4,8], got f64[4,8]"));

  args = kMlpArgs;
  args[9] = "i32[3]=zeros";
  CliResult i = run_cli(concat({"run", kMlp}, args));
  require_clean_failure(i);
  CHECK_THAT(i.output, Contains("input 4 must be f32[3], got i32[3]"));
}

TEST_CASE("cli: a malformed --arg spec is quoted and explained", "[cli]") {
  struct Case {
    std::string spec, problem;
  };
  std::vector<Case> cases = {
      {"f32[4,8=zeros", "missing ']'"},
      {"f32[2]=1,2,3", "expected 2 values for f32[2], got 3"},
      {"f32[2]=1,abc", "'abc'"},
      {"q7[2]=1,2", "unknown dtype 'q7'"},
      {"f32[2]", "expected '='"},
      {"f32[-1]=zeros", "is not a non-negative integer"},
      {"f32[4]=randn:x", "seed 'x'"},
      {"1,2,3", "expected DTYPE[SHAPE]=VALUES"},
      {"i32[2]=1.5,2", "'1.5'"},
      {"f32[4]=randn", "'randn' needs a seed: randn:1"},
      {"f32[4]=fill", "'fill' needs a value: fill:2.5"},
  };
  for (const Case& c : cases) {
    CliResult r = run_cli({"run", kMlp, "--arg", c.spec});
    INFO("spec " << c.spec);
    require_clean_failure(r);
    CHECK_THAT(r.output, Contains("invalid array spec '" + c.spec + "'"));
    CHECK_THAT(r.output, Contains(c.problem));
  }

  CliResult missing_value = run_cli({"run", kMlp, "--arg"});
  require_option_error(missing_value, "for the --arg option: requires a value!");

  CliResult missing_npy = run_cli({"run", kMlp, "--arg", "@/nonexistent/x.npy"});
  require_clean_failure(missing_npy);
  CHECK_THAT(missing_npy.output, Contains("/nonexistent/x.npy"));
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

TEST_CASE("cli: an unknown stage for --emit lists the stages", "[cli]") {
  CliResult r = run_cli({"compile", kMlp, "--emit=bogus"});
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains("unknown stage 'bogus'"));
  for (const char* stage : {"traced", "optimized", "linalg", "fused", "bufferized", "llvm",
                            "llvm-ir", "asm", "obj"})
    CHECK_THAT(r.output, Contains(stage));

  CliResult spaced = run_cli({"compile", kMlp, "--emit", "LLVM"});
  require_clean_failure(spaced);
  CHECK_THAT(spaced.output, Contains("unknown stage 'LLVM'"));
}

TEST_CASE("cli: --emit=memory-plan prints each function's temporaries and peak", "[cli]") {
  CliResult r = run_cli({"compile", kMlp, "--emit=memory-plan"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("memory plan of @mlp:"));
  CHECK_THAT(r.output, Contains("temporaries, peak"));
  CHECK_THAT(r.output, Contains("linalg."));  // the op that makes each buffer
  // The error for an unknown stage names it among the stages.
  CHECK_THAT(run_cli({"compile", kMlp, "--emit=bogus"}).output, Contains("memory-plan"));
}

TEST_CASE("cli: unknown options and commands, missing values and files are reported", "[cli]") {
  for (const char* command : {"run", "compile"}) {
    CliResult r = run_cli({command, kMlp, "--frobnicate"});
    require_option_error(r, "Unknown command line argument '--frobnicate'");
    CHECK_THAT(r.output, Contains("--help"));
  }
  require_option_error(run_cli({"frobnicate", kMlp}), "Unknown subcommand 'frobnicate'");
  // Options belong to their command.
  require_option_error(run_cli({"run", kMlp, "--emit=llvm"}),
                       "Unknown command line argument '--emit=llvm'");

  CliResult no_file = run_cli({"compile"});
  require_clean_failure(no_file);
  CHECK_THAT(no_file.output, Contains("compile needs an input file"));

  require_option_error(run_cli({"run", kMlp, kMlp}), "Too many positional arguments specified!");
  require_option_error(run_cli({"compile", kMlp, "--emit"}),
                       "for the --emit option: requires a value!");
  require_option_error(run_cli({"compile", kMlp, "-o"}), "for the -o option: requires a value!");
  require_option_error(run_cli({"compile", kMlp, "--target=tpu"}),
                       "for the --target option: Cannot find option named 'tpu'!");

  CliResult device = run_cli({"run", kMlp, "--device=tpu"});
  require_clean_failure(device);
  CHECK_THAT(device.output, Contains("unknown device 'tpu'; devices: cpu, cuda, cuda:N"));

  // No command: the help, as a mistake.
  CliResult bare = run_cli({});
  CHECK(bare.exit_code == 1);
  CHECK_THAT(bare.output, StartsWith("OVERVIEW:"));
  CHECK_THAT(bare.output, Contains("SUBCOMMANDS:"));
}

TEST_CASE("cli: --help lists the commands, and each command's options", "[cli]") {
  for (const char* flag : {"--help", "-h"}) {
    CliResult help = run_cli({flag});
    INFO(help.output);
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.output, Contains("USAGE: adjit [subcommand] [options]"));
    for (const char* command : {"compile", "run", "aot", "stages", "cache"})
      CHECK_THAT(help.output, Contains("\n  " + std::string(command) + " "));
    // LLVM's own options are hidden.
    CHECK_THAT(help.output, !Contains("--x86-asm-syntax") && !Contains("--print-after-all"));
  }

  struct Command {
    const char* name;
    std::vector<std::string> options;
  };
  const std::vector<Command> commands = {
      {"compile",
       {"<FILE.mlir>", "--emit=<STAGE>", "-o <FILE>", "--dump-dir=<DIR>", "--target=<value>",
        "=cuda", "--gpu-arch=<sm_NN>", "--print-ir-after-all", "--timing", "--target-cpu=<CPU>",
        "--mattr=<FEATURES>", "--tune-cpu=<CPU>"}},
      {"run", {"<FILE.mlir>", "--entry=<NAME>", "--arg=<SPEC>", "randn:7", "--out=<DIR>",
               "--device=<cpu|cuda|cuda:N>"}},
      {"aot",
       {"<FILE.mlir>", "--entry=<NAME>", "-o <DIR>", "--name=<NAME>", "--target-cpu=<CPU>",
        "--mattr=<FEATURES>", "--tune-cpu=<CPU>", "--static-library", "--dump-dir=<DIR>",
        "--target=<value>"}},
      {"stages", {"--target=<value>"}},
      {"cache", {"<info|clear>", "--dir=<DIR>"}},
  };
  for (const Command& command : commands) {
    CliResult help = run_cli({command.name, "--help"});
    INFO(help.output);
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.output, Contains("USAGE: adjit " + std::string(command.name) + " [options]"));
    for (const std::string& option : command.options) CHECK_THAT(help.output, Contains(option));
    CHECK_THAT(help.output, !Contains("--x86-asm-syntax") && !Contains("--print-after-all"));
  }
  // Only compile's.
  CHECK_THAT(run_cli({"compile", "--help"}).output, !Contains("--arg=") && !Contains("--entry="));
}

TEST_CASE("cli: --version prints adjit's version", "[cli]") {
  CliResult version = run_cli({"--version"});
  CHECK(version.exit_code == 0);
  CHECK_THAT(version.output, Matches("adjit \\d+\\.\\d+\\.\\d+\n"));
}

// llvm::cl reads the words of "@FILE", as LLVM's tools do; `--arg @x.npy` is
// still an array spec (tested with `adjit run` below).
TEST_CASE("cli: options can come from a response file", "[cli]") {
  TempDirectory dir;
  std::string options = dir.write("options.txt", "--emit=traced\n");
  CliResult r = run_cli({"compile", kMlp, "@" + options});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("adjit.dot_general"));
}

TEST_CASE("cli: a missing response file is named", "[cli]") {
  // llvm::cl took it for a second input file ("Too many positional arguments").
  CliResult r = run_cli({"compile", kMlp, "@/nonexistent/options.txt"});
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains("cannot read the response file '/nonexistent/options.txt'"));
}

TEST_CASE("cli: -o - prints the stage", "[cli]") {
  TempDirectory dir;
  std::string input = dir.write("f.mlir", read_file(kMlp));
  CliResult r = run_cli({"compile", input, "--emit=traced", "-o", "-"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("adjit.dot_general"));
  CHECK(!std::filesystem::exists("-"));  // once written as a file named "-"
}

TEST_CASE("cli: run --out refuses bf16 outputs before running", "[cli]") {
  TempDirectory dir;
  std::string input = dir.write("halves.mlir", R"(
    func.func @halves(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xbf16>) {
      %h = adjit.convert %x : tensor<2xf32> to tensor<2xbf16>
      return %x, %h : tensor<2xf32>, tensor<2xbf16>
    }
  )");
  std::string out = dir.file("out");
  CliResult r = run_cli({"run", input, "--arg", "f32[2]=1,2", "--out", out});
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains("--out cannot write out1 (bf16[2]): NumPy has no bf16"));
  CHECK_THAT(r.output, !Contains("out0 ="));  // nothing printed or written
  CHECK(!std::filesystem::exists(out));
  CliResult printed = run_cli({"run", input, "--arg", "f32[2]=1,2"});
  CHECK(printed.exit_code == 0);
}

TEST_CASE("cli: --emit=obj needs -o", "[cli]") {
  CliResult r = run_cli({"compile", kMlp, "--emit=obj"});
  require_clean_failure(r);
  CHECK_THAT(r.output, Contains("--emit=obj writes binary: give -o FILE"));

  TempDirectory dir;
  std::string object = dir.file("mlp.o");
  CliResult ok = run_cli({"compile", kMlp, "--emit=obj", "-o", object});
  REQUIRE(ok.exit_code == 0);
  std::string bytes = read_file(object);
  REQUIRE(bytes.size() > 4);
  CHECK(bytes.substr(0, 4) == "\x7f" "ELF");
}

TEST_CASE("cli: an unwritable -o or --out is reported", "[cli]") {
  CliResult o = run_cli({"compile", kMlp, "--emit=asm", "-o", "/nonexistent/dir/out.s"});
  require_clean_failure(o);
  CHECK_THAT(o.output, Contains("cannot write '/nonexistent/dir/out.s': No such file or directory"));
  CliResult out = run_cli(concat({"run", kMlp, "--out", "/proc/adjit-nope"}, kMlpArgs));
  require_clean_failure(out);
  CHECK_THAT(out.output, Contains("cannot create the --out directory '/proc/adjit-nope'"));
}

//===----------------------------------------------------------------------===//
// Positive cases
//===----------------------------------------------------------------------===//

TEST_CASE("cli: adjit stages lists every stage in order", "[cli]") {
  CliResult r = run_cli({"stages"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.output == "traced\ndifferentiated\noptimized\nlinalg\nfused\nbufferized\nllvm\nllvm-ir\nasm\nobj\n");
}

TEST_CASE("cli: compile --emit=asm has the packed entry point", "[cli]") {
  CliResult r = run_cli({"compile", kMlp, "--emit=asm"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("adjit_entry_mlp"));
  // MLIR's C-interface wrapper, inlined into the entry point, is not
  // emitted a second time on its own.
  CHECK_THAT(r.output, !Contains("_mlir_ciface_mlp"));

  CliResult ir = run_cli({"compile", kMlp});  // default: llvm-ir
  REQUIRE(ir.exit_code == 0);
  CHECK_THAT(ir.output, Contains("define void @adjit_entry_mlp(ptr"));

  TempDirectory dir;
  std::string out = dir.file("mlp.ll");
  CliResult to_file = run_cli({"compile", kMlp, "--emit", "llvm-ir", "-o", out});
  REQUIRE(to_file.exit_code == 0);
  CHECK(to_file.output.empty());
  CHECK_THAT(read_file(out), Contains("define void @adjit_entry_mlp(ptr"));
}

// compile shows the code another CPU would get: SSE2 only for x86-64 (no
// ymm or zmm registers), LLVM's attributes naming the CPU and the tuning.
TEST_CASE("cli: compile for another CPU", "[cli]") {
  CliResult sse2 = run_cli({"compile", kMlp, "--emit=asm", "--target-cpu=x86-64"});
  REQUIRE(sse2.exit_code == 0);
  CHECK_THAT(sse2.output, Contains("adjit_entry_mlp"));
  CHECK_THAT(sse2.output, !Contains("%ymm") && !Contains("%zmm"));
  CliResult tuned =
      run_cli({"compile", kMlp, "--target-cpu=x86-64-v3", "--tune-cpu=znver4"});
  REQUIRE(tuned.exit_code == 0);
  CHECK_THAT(tuned.output, Contains("\"target-cpu\"=\"x86-64-v3\""));
  CHECK_THAT(tuned.output, Contains("\"tune-cpu\"=\"znver4\""));
  CliResult unknown = run_cli({"compile", kMlp, "--mattr=+avx9000"});
  CHECK(unknown.exit_code != 0);
  CHECK_THAT(unknown.output, Contains("unknown target feature '+avx9000'"));
  CliResult gpu = run_cli({"compile", kMlp, "--target=cuda", "--tune-cpu=znver4"});
  CHECK(gpu.exit_code != 0);
  CHECK_THAT(gpu.output, Contains("--target=cuda code is for --gpu-arch"));
}

TEST_CASE("cli: run prints the outputs and writes them as .npy", "[cli]") {
  TempDirectory dir;
  std::string out_dir = dir.file("outputs/nested");
  CliResult r = run_cli(concat(concat({"run", kMlp}, kMlpArgs), {"--out", out_dir}));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, StartsWith("out0 = f32[4,3] [["));
  CHECK_THAT(r.output, !Contains("out1"));

  REQUIRE(std::filesystem::exists(out_dir + "/out0.npy"));
  CHECK_FALSE(std::filesystem::exists(out_dir + "/out1.npy"));
  adjit::Array probs = adjit::load_npy(out_dir + "/out0.npy");
  REQUIRE(probs.dtype() == adjit::DType::f32);
  REQUIRE(probs.shape() == adjit::Shape{4, 3});
  // The printed text is the same array.
  CHECK_THAT(r.output, Contains("out0 = " + adjit::to_string(probs)));
  // Softmax rows are probability distributions.
  std::vector<float> p = probs.to_vector<float>();
  for (int row = 0; row < 4; ++row) {
    double sum = 0;
    for (int col = 0; col < 3; ++col) {
      CHECK(p[row * 3 + col] > 0.0f);
      sum += p[row * 3 + col];
    }
    CHECK(sum == Approx(1.0).epsilon(1e-6));
  }

  // Same inputs, same outputs: the .npy written by a second run is identical.
  std::string again = dir.file("again");
  REQUIRE(run_cli(concat(concat({"run", kMlp}, kMlpArgs), {"--out=" + again})).exit_code == 0);
  CHECK(read_file(again + "/out0.npy") == read_file(out_dir + "/out0.npy"));

  // Inputs can come from .npy files too; `--arg @x.npy` is a spec, not one of
  // llvm::cl's response files.
  adjit::save_npy(adjit::parse_array_spec("f32[4,8]=randn:1"), dir.file("x.npy"));
  std::vector<std::string> from_npy = kMlpArgs;
  from_npy[1] = "@" + dir.file("x.npy");
  CliResult npy = run_cli(concat({"run", kMlp}, from_npy));
  REQUIRE(npy.exit_code == 0);
  CHECK(npy.output == r.output);
  // So it is inside a response file, on separate lines or attached, also
  // in one named by another.
  std::string words;
  for (const std::string& word : from_npy) words += word + "\n";
  std::string inner = dir.write("inner.txt", words);
  std::string outer = dir.write("outer.txt", "@" + inner + "\n");
  for (const std::string& file : {inner, outer}) {
    CliResult responded = run_cli({"run", kMlp, "@" + file});
    INFO(responded.output);
    CHECK(responded.output == r.output);
  }
}

TEST_CASE("cli: run matches an independent double-precision MLP", "[cli]") {
  // The same inputs the CLI builds from the specs.
  std::vector<adjit::Array> inputs;
  for (size_t i = 1; i < kMlpArgs.size(); i += 2)
    inputs.push_back(adjit::parse_array_spec(kMlpArgs[i]));
  auto values = [&](size_t i) {
    std::vector<float> f = inputs[i].to_vector<float>();
    return std::vector<double>(f.begin(), f.end());
  };
  const std::vector<double> x = values(0), w1 = values(1), b1 = values(2), w2 = values(3),
                            b2 = values(4);
  const int batch = 4, in = 8, hidden = 16, classes = 3;
  REQUIRE(x.size() == size_t(batch * in));
  REQUIRE(w1.size() == size_t(in * hidden));
  REQUIRE(w2.size() == size_t(hidden * classes));

  // probs = softmax(tanh(x @ w1 + b1) @ w2 + b2, axis 1), in double.
  std::vector<double> expected(batch * classes);
  for (int r = 0; r < batch; ++r) {
    std::vector<double> h(hidden);
    for (int j = 0; j < hidden; ++j) {
      double acc = b1[j];
      for (int k = 0; k < in; ++k) acc += x[r * in + k] * w1[k * hidden + j];
      h[j] = std::tanh(acc);
    }
    std::vector<double> z(classes);
    for (int c = 0; c < classes; ++c) {
      double acc = b2[c];
      for (int j = 0; j < hidden; ++j) acc += h[j] * w2[j * classes + c];
      z[c] = acc;
    }
    double m = *std::max_element(z.begin(), z.end()), sum = 0;
    for (double& v : z) sum += (v = std::exp(v - m));
    for (int c = 0; c < classes; ++c) expected[r * classes + c] = z[c] / sum;
  }

  TempDirectory dir;
  CliResult run = run_cli(concat(concat({"run", kMlp}, kMlpArgs), {"--out", dir.path()}));
  REQUIRE(run.exit_code == 0);
  adjit::Array probs = adjit::load_npy(dir.file("out0.npy"));
  REQUIRE(probs.shape() == adjit::Shape{batch, classes});
  std::vector<float> got = probs.to_vector<float>();
  for (int i = 0; i < batch * classes; ++i) {
    INFO("element " << i << ": adjit " << got[i] << ", reference " << expected[i]
                    << ", relative error " << std::abs(got[i] - expected[i]) / std::abs(expected[i]));
    CHECK(std::abs(got[i] - expected[i]) <= 1e-5 * std::abs(expected[i]));
  }
}

TEST_CASE("cli: --timing reports MLIR's passes and LLVM's share", "[cli]") {
  CliResult r = run_cli({"compile", kMlp, "--emit=obj", "-o", "/dev/null", "--timing"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("adjit-tile-and-fuse-rows") || Contains("TileAndFuseRows"));
  CHECK_THAT(r.output, Contains("LLVM: translation to LLVM IR"));
  CHECK_THAT(r.output, Contains("LLVM: -O3"));
  CHECK_THAT(r.output, Contains("LLVM: machine code"));
  CHECK_THAT(r.output, !Contains("-O0 code generation"));
}

TEST_CASE("cli: --print-ir-after-all prints after every pass, as mlir-opt does", "[cli]") {
  CliResult r = run_cli({"compile", kMlp, "--emit=optimized", "--print-ir-after-all"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, !Contains("IR Dump Before"));
  // Passes that change nothing here are printed too.
  CHECK_THAT(r.output, Contains("IR Dump After SymbolDCE"));
}

TEST_CASE("cli: --dump-dir with -o also writes the default stage", "[cli]") {
  ScratchDir dir("adjit-cli-dump");
  std::string output = dir.path() + "/mlp.ll";
  CliResult r = run_cli({"compile", kMlp, "--dump-dir", dir.path() + "/stages", "-o", output});
  REQUIRE(r.exit_code == 0);
  std::ifstream written(output);
  std::string text((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Contains("define"));
}

// A gradient whose loop body is past the optimizing code generator's block
// limit (CpuBackend.h) says so in its timing (its numbers are checked in
// test_compiler_long_programs.cpp).
TEST_CASE("cli: --timing names -O0 code generation for a very long block", "[cli]") {
  std::string text = "func.func private @chain(%x: tensor<16xf32>) -> tensor<f32> {\n"
                     "  %c = adjit.constant dense<0.01> : tensor<16xf32>\n";
  std::string y = "%x";
  for (int i = 0; i < 1500; ++i) {
    std::string n = std::to_string(i);
    text += "  %s" + n + " = adjit.sin " + y + " : tensor<16xf32>\n";
    text += "  %m" + n + " = adjit.mul %s" + n + ", %c : tensor<16xf32>\n";
    text += "  %y" + n + " = adjit.add " + y + ", %m" + n + " : tensor<16xf32>\n";
    y = "%y" + n;
  }
  text += "  %r = adjit.reduce sum " + y + ", dims = [0] : (tensor<16xf32>) -> tensor<f32>\n"
          "  return %r : tensor<f32>\n}\n"
          "func.func @chain_grad(%x: tensor<16xf32>) -> tensor<16xf32> {\n"
          "  %g = adjit.grad @chain(%x) wrt [0] : (tensor<16xf32>) -> tensor<16xf32>\n"
          "  return %g : tensor<16xf32>\n}\n";
  TempDirectory dir;
  CliResult r = run_cli({"compile", dir.write("long.mlir", text), "--emit=obj", "-o", "/dev/null",
                         "--timing"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("LLVM: machine code (-O0 code generation: a block of "));
}

// IR nested thousands of levels deep used to overflow the parser's stack
// (SIGSEGV, no output); it is rejected at the bracket that goes too deep,
// while deep but reasonable nesting still compiles.
TEST_CASE("cli: excessively nested IR is rejected, not a crash", "[cli]") {
  auto nested = [](int levels) {
    std::string text = "func.func @f() {\n";
    for (int i = 0; i < levels; ++i) text += "\"scf.execute_region\"() ({\n";
    text += "\"scf.yield\"() : () -> ()\n";
    for (int i = 0; i < levels; ++i)
      text += std::string("}) : () -> ()\n") + (i + 1 < levels ? "\"scf.yield\"() : () -> ()\n" : "");
    return text + "return\n}\n";
  };
  TempDirectory dir;
  CliResult deep = run_cli({"compile", dir.write("deep.mlir", nested(5000)), "--emit=traced"});
  require_clean_failure(deep);
  CHECK_THAT(deep.output, Contains("deep.mlir:257:25: error: brackets nested more than 512 levels"));
  CliResult fine = run_cli({"compile", dir.write("fine.mlir", nested(200)), "--emit=llvm"});
  CHECK(fine.exit_code == 0);
}

TEST_CASE("cli: aot writes one library for several entries, with clear errors", "[cli][aot]") {
  TempDirectory dir;
  std::string path = dir.write("two.mlir", kTwoEntries);
  CliResult both = run_cli({"aot", path, "--entry", "first", "--entry", "second", "-o",
                            dir.file("out")});
  INFO(both.output);
  REQUIRE(both.exit_code == 0);
  CHECK_THAT(both.output, Contains("exported first"));
  CHECK_THAT(both.output, Contains("exported second"));
  std::string header = read_file(dir.file("out/two.h"));
  CHECK_THAT(header, Contains("int first("));
  CHECK_THAT(header, Contains("int second("));
  CHECK(std::filesystem::exists(dir.file("out/two.o")));

  CliResult unknown = run_cli({"aot", path, "--entry", "third", "-o", dir.file("bad")});
  require_clean_failure(unknown);
  CHECK_THAT(unknown.output, Contains("unknown entry 'third'; the module defines: first, second"));

  std::string clashing = dir.write("clashing.mlir", R"(
    func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    }
    func.func @g_call(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    })");
  CliResult clash = run_cli({"aot", clashing, "-o", dir.file("bad")});
  require_clean_failure(clash);
  CHECK_THAT(clash.output, Contains("entries 'g' and 'g_call' both define the C name 'g_call'"));

  std::string dynamic = dir.write("dynamic.mlir", R"(
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      return %x : tensor<?xf32>
    })");
  CliResult shapes = run_cli({"aot", dynamic, "-o", dir.file("bad")});
  require_clean_failure(shapes);
  CHECK_THAT(shapes.output, Contains("tensor<?xf32>"));
  CHECK_THAT(shapes.output, Contains("statically shaped"));

  CliResult cuda = run_cli({"aot", path, "--target=cuda", "-o", dir.file("bad")});
  require_clean_failure(cuda);
  CHECK_THAT(cuda.output, Contains("aot compiles for the cpu target only"));

  CliResult cpu = run_cli({"aot", path, "--target-cpu=pentium9", "-o", dir.file("bad")});
  require_clean_failure(cpu);
  CHECK_THAT(cpu.output, Contains("unknown target CPU 'pentium9'"));
  CHECK_THAT(cpu.output, !Contains("not a recognized processor"));  // checked before LLVM warns

  CliResult tune = run_cli({"aot", path, "--tune-cpu=pentium9", "-o", dir.file("bad")});
  require_clean_failure(tune);
  CHECK_THAT(tune.output, Contains("unknown tuning CPU 'pentium9'"));
  CHECK_THAT(tune.output, !Contains("not a recognized processor"));

  CliResult no_output = run_cli({"aot", path});
  require_clean_failure(no_output);
  CHECK_THAT(no_output.output, Contains("-o DIR"));
  CHECK(!std::filesystem::exists(dir.file("bad")));
}
