// Ahead-of-time output: an object file (or static library) whose exported
// functions take typed pointers and return a status, and the C header that
// declares them (adjit/Aot.h, docs/guide/aot.md).

#include "adjit/Aot.h"

#include "CpuBackend.h"
#include "ProgramImpl.h"

#include "adjit/Passes/Passes.h"
#include "adjit/runtime/AotRuntime.h"
#include "adjit/runtime/Error.h"
#include "adjit/runtime/Files.h"
#include "adjit/runtime/Threads.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <iterator>
#include <optional>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace adjit::aot {

namespace {

namespace fs = std::filesystem;

constexpr const char* kNameRule =
    "ahead-of-time functions are named by C identifiers that are not C or C++ keywords, not "
    "main, not reserved (_X..., __..., ..._t), not adjit_... or ADJIT_..., not a function "
    "of the C library or libm (memcpy, sin), which the object would replace in the programs "
    "it links into, not a macro of the C library (assert, NULL, INT32_MAX), and not the name "
    "of a C library header (string, math: NAME.h would hide it)";

// The macros of the C library's headers (C23 and the POSIX ones the
// header and its users include), which a function of the same name would
// break: the C library's functions are found by dlsym, its macros are not.
bool names_c_library_macro(const std::string& name) {
  static const std::set<std::string> macros = {
      "assert", "errno", "NULL", "EOF", "I", "complex", "imaginary", "offsetof", "unreachable",
      "signbit", "isfinite", "isinf", "isnan", "isnormal", "fpclassify", "iscanonical",
      "issignaling", "issubnormal", "iszero", "isgreater", "isgreaterequal", "isless",
      "islessequal", "islessgreater", "isunordered", "INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF",
      "HUGE_VALL", "setjmp", "va_arg", "va_copy", "va_end", "va_start", "noreturn",
      "EXIT_FAILURE", "EXIT_SUCCESS", "RAND_MAX", "MB_CUR_MAX", "MB_LEN_MAX", "BUFSIZ",
      "FILENAME_MAX", "FOPEN_MAX", "L_tmpnam", "SEEK_CUR", "SEEK_END", "SEEK_SET", "TMP_MAX",
      "CLOCKS_PER_SEC", "TIME_UTC", "EDOM", "ERANGE", "EILSEQ", "SIG_DFL", "SIG_ERR", "SIG_IGN",
      "SIGABRT", "SIGFPE", "SIGILL", "SIGINT", "SIGSEGV", "SIGTERM", "CHAR_BIT", "CHAR_MAX",
      "CHAR_MIN", "SCHAR_MAX", "SCHAR_MIN", "UCHAR_MAX", "SHRT_MAX", "SHRT_MIN", "USHRT_MAX",
      "INT_MAX", "INT_MIN", "UINT_MAX", "LONG_MAX", "LONG_MIN", "ULONG_MAX", "LLONG_MAX",
      "LLONG_MIN", "ULLONG_MAX", "SIZE_MAX", "PTRDIFF_MAX", "PTRDIFF_MIN", "WCHAR_MAX",
      "WCHAR_MIN", "WINT_MAX", "WINT_MIN", "SIG_ATOMIC_MAX", "SIG_ATOMIC_MIN", "MATH_ERRNO",
      "MATH_ERREXCEPT", "math_errhandling", "FP_NAN", "FP_INFINITE", "FP_ZERO", "FP_NORMAL",
      "FP_SUBNORMAL", "FP_FAST_FMA", "FP_FAST_FMAF", "FP_ILOGB0", "FP_ILOGBNAN", "M_E", "M_PI",
      "M_LN2", "M_SQRT2", "LC_ALL", "LC_COLLATE", "LC_CTYPE", "LC_MONETARY", "LC_NUMERIC",
      "LC_TIME", "PTHREAD_MUTEX_INITIALIZER", "PTHREAD_ONCE_INIT", "PTHREAD_COND_INITIALIZER"};
  if (macros.count(name)) return true;
  // <stdint.h>'s and <float.h>'s families: INT32_MAX, UINT64_C, INT_FAST8_MIN,
  // FLT_EPSILON, DBL_MAX.
  bool integer_limit = (name.starts_with("INT") || name.starts_with("UINT")) &&
                       (name.ends_with("_MAX") || name.ends_with("_MIN") ||
                        name.ends_with("_WIDTH") || name.ends_with("_C"));
  bool float_limit = name.starts_with("FLT_") || name.starts_with("DBL_") ||
                     name.starts_with("LDBL_");
  return integer_limit || float_limit;
}

// The headers of the C library (C23's, and POSIX's most included): NAME.h
// next to them on an include path would be included in their place.
bool names_c_library_header(const std::string& name) {
  static const std::set<std::string> headers = {
      "assert", "complex", "ctype", "errno", "fenv", "float", "inttypes", "iso646", "limits",
      "locale", "math", "setjmp", "signal", "stdalign", "stdarg", "stdatomic", "stdbit",
      "stdbool", "stdckdint", "stddef", "stdint", "stdio", "stdlib", "stdnoreturn", "string",
      "tgmath", "threads", "time", "uchar", "wchar", "wctype", "pthread", "unistd", "strings",
      "fcntl", "dlfcn", "sched", "semaphore", "alloca", "malloc", "memory", "endian"};
  return headers.count(name) > 0;
}

// Whether the C library or libm (which every C program links) exports a
// function or variable `name`.
bool names_c_library_symbol(const std::string& name) {
  static void* const libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  static void* const libm = dlopen("libm.so.6", RTLD_LAZY);
  for (void* library : {libc, libm})
    if (library && dlsym(library, name.c_str())) return true;
  return false;
}

bool can_name_c_function(const std::string& name) {
  // C23's and C++20's keywords (the header is read by both), and the
  // alternative operator spellings.
  static const std::set<std::string> keywords = {
      "_Alignas", "_Alignof", "_Atomic", "_BitInt", "_Bool", "_Complex", "_Decimal128",
      "_Decimal32", "_Decimal64", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert",
      "_Thread_local", "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "char8_t", "class",
      "co_await", "co_return", "co_yield", "compl", "concept", "const", "const_cast", "consteval",
      "constexpr", "constinit", "continue", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
      "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
      "register", "reinterpret_cast", "requires", "restrict", "return", "short", "signed",
      "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
      "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "typeof",
      "typeof_unqual", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
      "while", "xor", "xor_eq"};
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  // Reserved to the implementation: _X... and __...; *_t to POSIX types (the
  // header declares int32_t and friends); adjit_/ADJIT_ to the runtime and
  // the header's own names; main to the C program that links the object.
  bool reserved = (name[0] == '_' && name.size() > 1 &&
                   (name[1] == '_' || std::isupper(static_cast<unsigned char>(name[1])))) ||
                  name.ends_with("_t") || name.starts_with("adjit_") ||
                  name.starts_with("ADJIT_") || name == "main";
  return !keywords.count(name) && !reserved && !names_c_library_macro(name) &&
         !names_c_library_header(name) && !names_c_library_symbol(name);
}

// The symbols compiled code calls for temporaries are the JIT runtime's
// (KernelAllocation.h); ahead-of-time code calls the AOT runtime's.
constexpr std::array<std::pair<const char*, const char*>, 3> kAllocationSymbols = {{
    {"_mlir_memref_to_llvm_alloc", "adjit_aot_alloc"},
    {"_mlir_memref_to_llvm_aligned_alloc", "adjit_aot_aligned_alloc"},
    {"_mlir_memref_to_llvm_free", "adjit_aot_free"},
}};

// f16 and bf16 elements cross the C ABI as their bit patterns.
std::string_view c_type(DType dtype) {
  return dtype == DType::f16 || dtype == DType::bf16 ? "uint16_t" : cpp_type_name(dtype);
}

// Every name the header defines for entry `s`: its functions and macros
// (header_text writes them).
std::vector<std::string> header_names(const Signature& s) {
  std::vector<std::string> names;
  for (const char* suffix : {"", "_call", "_with_workspace", "_NUM_INPUTS", "_NUM_OUTPUTS",
                             "_WORKSPACE_BYTES", "_WORKSPACE_ALIGNMENT",
                             "_ALLOCATES_WITH_WORKSPACE"})
    names.push_back(s.name + suffix);
  auto arrays = [&](const char* kind, size_t count) {
    for (size_t i = 0; i < count; ++i)
      for (const char* suffix : {"_RANK", "_SHAPE", "_ELEMENTS"})
        names.push_back(fmt::format("{}_{}{}{}", s.name, kind, i, suffix));
  };
  arrays("IN", s.inputs.size());
  arrays("OUT", s.outputs.size());
  return names;
}

// The selected signatures, in the order asked for, checked.
std::vector<Signature> select_entries(const Program& program, const AotOptions& options,
                                      const std::vector<std::string>& entries) {
  const std::vector<Signature>& all = program.signatures();
  std::vector<Signature> selected;
  if (entries.empty()) {
    selected = all;
  } else {
    for (const std::string& name : entries) {
      auto found = std::find_if(all.begin(), all.end(),
                                [&](const Signature& s) { return s.name == name; });
      if (found == all.end()) {
        std::string known;
        for (const Signature& s : all) known += (known.empty() ? "" : ", ") + s.name;
        throw CompileError(fmt::format("unknown entry '{}'; the module defines: {}", name,
                                       known.empty() ? "(no public functions)" : known));
      }
      if (std::any_of(selected.begin(), selected.end(),
                      [&](const Signature& s) { return s.name == name; }))
        throw CompileError(fmt::format("entry '{}' is named twice", name));
      selected.push_back(*found);
    }
  }
  if (selected.empty()) throw CompileError("the module defines no public function to export");
  std::map<std::string, std::string> symbols;  // C symbol -> the entry defining it
  for (const Signature& s : selected) {
    if (!can_name_c_function(s.name))
      throw CompileError(fmt::format("entry '{}' cannot be a C function name: {}", s.name,
                                     kNameRule));
    for (size_t o = 0; o < s.outputs.size(); ++o)
      if (s.aliased_input(o) >= 0)
        throw CompileError(fmt::format(
            "entry '{}' writes output {} into its input {} (a donated argument, "
            "adjit.aliasing_output): ahead-of-time functions take separate input and output "
            "buffers; trace it without JitOptions::donate",
            s.name, o, s.aliased_input(o)));
    for (const std::string& symbol : header_names(s))
      if (auto [first, inserted] = symbols.emplace(symbol, s.name); !inserted)
        throw CompileError(fmt::format("entries '{}' and '{}' both define the C name '{}'",
                                       first->second, s.name, symbol));
  }
  return selected;
}

// The OpenMP entry points that parallel regions call (MLIR's OpenMP
// lowering), which the AOT runtime's team provides (AotThreads.cpp).
constexpr std::array<const char*, 5> kTeamSymbols = {
    "__kmpc_global_thread_num", "__kmpc_fork_call", "__kmpc_for_static_init_8u",
    "__kmpc_for_static_fini", "__kmpc_barrier"};

// Gives compiled code the AOT runtime's allocation functions and team, and
// hides every function of the program behind the exported ones, so that two
// ahead-of-time objects link into one program.
void internalize(llvm::Module& module) {
  for (auto [jit_name, aot_name] : kAllocationSymbols)
    if (llvm::Function* function = module.getFunction(jit_name)) function->setName(aot_name);
  for (const char* name : kTeamSymbols)
    if (llvm::Function* function = module.getFunction(name))
      function->setName("adjit_aot_kmpc_" + function->getName().drop_front(strlen("__kmpc_")));
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) {
      if (function.getName().starts_with("__kmpc_") || function.getName().starts_with("omp_"))
        throw CompileError(fmt::format(
            "internal error: ahead-of-time code calls an OpenMP runtime function that the AOT "
            "runtime does not provide ({})",
            function.getName().str()));
      continue;
    }
    function.setLinkage(llvm::GlobalValue::InternalLinkage);
    function.setName("adjit_aot." + function.getName());
  }
  for (llvm::GlobalVariable& global : module.globals())
    if (!global.isDeclaration()) global.setLinkage(llvm::GlobalValue::InternalLinkage);
}

// A kernel's arena: the block of temporaries whose places adjit-plan-buffers
// fixed at compile time, which NAME_with_workspace's caller provides.
struct Workspace {
  uint64_t bytes = 0, alignment = 64;  // at least the 64 bytes aot.md promises
  bool other_temporaries = false;  // allocations besides the arena
};

llvm::CallInst* call_to(llvm::Value* v, llvm::StringRef callee) {
  auto* call = llvm::dyn_cast<llvm::CallInst>(v);
  llvm::Function* f = call ? call->getCalledFunction() : nullptr;
  return f && f->getName() == callee ? call : nullptr;
}

// Every arena (a temporary that adjit_arena_buffer offsets) is allocated
// by adjit_aot_arena and freed by adjit_aot_arena_free, which lend it the
// call's workspace.
void lend_arenas(llvm::Module& module) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::FunctionCallee arena =
      module.getOrInsertFunction("adjit_aot_arena", llvm::FunctionType::get(ptr, {i64, i64}, false));
  llvm::FunctionCallee arena_free = module.getOrInsertFunction(
      "adjit_aot_arena_free", llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr}, false));
  std::vector<llvm::CallInst*> allocations;
  for (llvm::Function& f : module)
    for (llvm::Instruction& i : llvm::instructions(f))
      if (call_to(&i, "adjit_aot_aligned_alloc") || call_to(&i, "adjit_aot_alloc"))
        allocations.push_back(llvm::cast<llvm::CallInst>(&i));
  for (llvm::CallInst* allocation : allocations) {
    bool is_arena = llvm::any_of(allocation->users(), [&](llvm::User* user) {
      llvm::CallInst* use = call_to(user, "adjit_arena_buffer");
      return use && use->getArgOperand(0) == allocation;
    });
    if (!is_arena) continue;
    llvm::IRBuilder<> b(allocation);
    bool aligned = allocation->arg_size() == 2;
    llvm::Value* alignment = aligned ? allocation->getArgOperand(0) : b.getInt64(64);
    llvm::CallInst* lent =
        b.CreateCall(arena, {alignment, allocation->getArgOperand(aligned ? 1 : 0)});
    std::vector<llvm::CallInst*> frees;
    for (llvm::User* user : allocation->users())
      if (llvm::CallInst* free = call_to(user, "adjit_aot_free")) frees.push_back(free);
    for (llvm::CallInst* free : frees) free->setCalledFunction(arena_free);
    allocation->replaceAllUsesWith(lent);
    allocation->eraseFromParent();
  }
}

// What `entry` and the functions it calls allocate: their largest arena of
// constant size, and whether anything else.
Workspace workspace_of(llvm::Function* entry) {
  Workspace workspace;
  std::set<llvm::Function*> seen{entry};
  std::vector<llvm::Function*> pending{entry};
  while (!pending.empty()) {
    llvm::Function* f = pending.back();
    pending.pop_back();
    for (llvm::Instruction& i : llvm::instructions(*f)) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(&i);
      llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
      if (!callee) continue;
      if (!callee->isDeclaration() && seen.insert(callee).second) pending.push_back(callee);
      llvm::StringRef name = callee->getName();
      if (name == "adjit_aot_alloc" || name == "adjit_aot_aligned_alloc") {
        workspace.other_temporaries = true;
      } else if (name == "adjit_aot_arena") {
        auto* alignment = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
        auto* bytes = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(1));
        if (!alignment || !bytes) {
          workspace.other_temporaries = true;
          continue;
        }
        workspace.bytes = std::max<uint64_t>(workspace.bytes, bytes->getZExtValue());
        workspace.alignment = std::max<uint64_t>(workspace.alignment, alignment->getZExtValue());
      }
    }
  }
  return workspace;
}

// int NAME(const T* in0, ..., T* out0, ...): checks the pointers, builds one
// memref descriptor per array (contiguous, row-major) and runs the entry
// through adjit_aot_call (adjit_aot_call_parallel for `threads` != 1),
// which turns a failed allocation into a status. With a `workspace`,
// NAME_with_workspace(..., void* workspace) instead, whose arena is the
// caller's workspace (adjit_aot_call_workspace).
llvm::Function* emit_typed_function(llvm::Module& module, const Signature& signature,
                                    llvm::Function* entry, int threads,
                                    const Workspace* workspace = nullptr) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  size_t arrays = signature.inputs.size() + signature.outputs.size();
  auto* type = llvm::FunctionType::get(
      i32, std::vector<llvm::Type*>(arrays + (workspace ? 1 : 0), ptr), false);
  auto* function = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage,
      signature.name + (workspace ? "_with_workspace" : ""), module);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  for (const char* kind : {"target-cpu", "tune-cpu", "target-features", "prefer-vector-width"})
    if (entry->hasFnAttribute(kind)) function->addFnAttr(entry->getFnAttribute(kind));

  auto* body = llvm::BasicBlock::Create(context, "body", function);
  auto* null_argument = llvm::BasicBlock::Create(context, "null_argument", function);
  auto* check = llvm::BasicBlock::Create(context, "check", function, body);
  llvm::IRBuilder<> b(check);
  llvm::Value* any_null = b.getFalse();
  for (llvm::Argument& argument : function->args())
    if (argument.getArgNo() < arrays || (workspace && workspace->bytes > 0))
      any_null = b.CreateOr(any_null, b.CreateIsNull(&argument));
  b.CreateCondBr(any_null, null_argument, body);
  b.SetInsertPoint(null_argument);
  b.CreateRet(b.getInt32(ADJIT_AOT_NULL_ARGUMENT));

  b.SetInsertPoint(body);
  if (workspace && workspace->bytes > 0) {
    auto* misaligned = llvm::BasicBlock::Create(context, "misaligned", function);
    auto* aligned = llvm::BasicBlock::Create(context, "aligned", function);
    llvm::Value* address = b.CreatePtrToInt(function->getArg(arrays), i64);
    b.CreateCondBr(b.CreateICmpNE(b.CreateAnd(address, workspace->alignment - 1), b.getInt64(0)),
                   misaligned, aligned);
    b.SetInsertPoint(misaligned);
    b.CreateRet(b.getInt32(ADJIT_AOT_MISALIGNED_WORKSPACE));
    b.SetInsertPoint(aligned);
  }
  llvm::Value* descriptors = b.CreateAlloca(llvm::ArrayType::get(ptr, arrays), nullptr, "arrays");
  size_t index = 0;
  auto describe_array = [&](const TensorType& type) {
    const Shape& shape = type.shape;
    size_t rank = shape.size();
    llvm::Value* words = b.CreateAlloca(llvm::ArrayType::get(i64, 3 + 2 * rank));
    auto word = [&](size_t i) { return b.CreateConstInBoundsGEP1_64(i64, words, i); };
    llvm::Value* data = function->getArg(index);
    b.CreateStore(data, word(0));  // allocated
    b.CreateStore(data, word(1));  // aligned
    b.CreateStore(b.getInt64(0), word(2));
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      b.CreateStore(b.getInt64(shape[d]), word(3 + d));
      b.CreateStore(b.getInt64(stride), word(3 + rank + d));
      stride *= shape[d];
    }
    b.CreateStore(words, b.CreateConstInBoundsGEP1_64(ptr, descriptors, index));
    ++index;
  };
  for (const TensorType& type : signature.inputs) describe_array(type);
  for (const TensorType& type : signature.outputs) describe_array(type);
  if (workspace) {
    llvm::FunctionCallee call = module.getOrInsertFunction(
        "adjit_aot_call_workspace", llvm::FunctionType::get(i32, {ptr, ptr, i32, ptr, i64}, false));
    b.CreateRet(b.CreateCall(call, {entry, descriptors, b.getInt32(threads),
                                    function->getArg(arrays), b.getInt64(workspace->bytes)}));
  } else if (threads == 1) {
    llvm::FunctionCallee call = module.getOrInsertFunction(
        "adjit_aot_call", llvm::FunctionType::get(i32, {ptr, ptr}, false));
    b.CreateRet(b.CreateCall(call, {entry, descriptors}));
  } else {
    llvm::FunctionCallee call = module.getOrInsertFunction(
        "adjit_aot_call_parallel", llvm::FunctionType::get(i32, {ptr, ptr, i32}, false));
    b.CreateRet(b.CreateCall(call, {entry, descriptors, b.getInt32(threads)}));
  }
  return function;
}

// int NAME_call(const void* const* inputs, void* const* outputs): the same
// function for callers that hold their arrays in lists.
void emit_list_function(llvm::Module& module, const Signature& signature,
                        llvm::Function* typed) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  auto* function = llvm::Function::Create(llvm::FunctionType::get(i32, {ptr, ptr}, false),
                                          llvm::GlobalValue::ExternalLinkage,
                                          signature.name + "_call", module);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  auto* check = llvm::BasicBlock::Create(context, "check", function);
  auto* body = llvm::BasicBlock::Create(context, "body", function);
  auto* null_argument = llvm::BasicBlock::Create(context, "null_argument", function);
  llvm::IRBuilder<> b(check);
  llvm::Value* inputs = function->getArg(0);
  llvm::Value* outputs = function->getArg(1);
  llvm::Value* any_null = b.getFalse();
  if (!signature.inputs.empty()) any_null = b.CreateIsNull(inputs);
  if (!signature.outputs.empty()) any_null = b.CreateOr(any_null, b.CreateIsNull(outputs));
  b.CreateCondBr(any_null, null_argument, body);
  b.SetInsertPoint(null_argument);
  b.CreateRet(b.getInt32(ADJIT_AOT_NULL_ARGUMENT));
  b.SetInsertPoint(body);
  std::vector<llvm::Value*> arrays;
  for (size_t i = 0; i < signature.inputs.size(); ++i)
    arrays.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, inputs, i)));
  for (size_t i = 0; i < signature.outputs.size(); ++i)
    arrays.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, outputs, i)));
  b.CreateRet(b.CreateCall(typed, arrays));
}

// How the header describes the threads its functions use.
std::string threads_text(int threads) {
  if (threads == 1)
    return " * Functions are thread-safe: calls may run at once on different\n"
           " * outputs; each runs on the calling thread.\n";
  std::string team = threads == 0 ? std::string("ADJIT_NUM_THREADS threads, else one per\n"
                                                " * core the process may run on")
                                  : fmt::format("{} threads", threads);
  return fmt::format(
      " * Functions are thread-safe: calls may run at once on different\n"
      " * outputs. Each call runs its parallel work on a team of the calling\n"
      " * thread and workers that the runtime starts at the first call and\n"
      " * keeps: up to {}. Calls running at once share\n"
      " * that count. Results do not depend on the number of threads.\n",
      team);
}

std::string header_text(const std::string& library, const std::vector<Signature>& functions,
                        const std::vector<Workspace>& workspaces, int threads) {
  // The library's name as written: C names differ by case, so must guards
  // (upper-cased, "scale" and "SCALE" shared one and hid the second header);
  // and the entries' names: two libraries of one name in two directories,
  // with other entries, are two headers.
  std::string entry_names;
  for (const Signature& s : functions) entry_names += s.name + "\n";
  std::string guard = fmt::format("ADJIT_AOT_{}_{:08x}_H_", library,
                                  static_cast<uint32_t>(llvm::xxh3_64bits(entry_names)));
  std::string text;
  auto h = std::back_inserter(text);
  fmt::format_to(h,
                 "/* {library}.h: generated by adjit {version} ahead of time; do not edit.\n"
                 " *\n"
                 " * Each function takes one pointer per input, then one per output, to\n"
                 " * dense row-major (C order) arrays of exactly the shapes given below, and\n"
                 " * returns ADJIT_AOT_OK (0) or an error status, after which the outputs\n"
                 " * are unspecified. Outputs must not overlap the inputs or each other.\n"
                 " * f16 and bf16 elements are passed as their uint16_t bit patterns.\n"
                 " * Temporaries are allocated (aligned_alloc) and freed within the call.\n"
                 "{threads}"
                 " * NAME_call(inputs, outputs) is the same function with the pointers in\n"
                 " * two arrays. NAME_with_workspace(..., workspace) takes the temporaries\n"
                 " * the compiler placed in one block from `workspace`, the caller's\n"
                 " * NAME_WORKSPACE_BYTES bytes aligned to NAME_WORKSPACE_ALIGNMENT (not\n"
                 " * shared by calls running at once; NULL only when the size is 0); with\n"
                 " * NAME_ALLOCATES_WITH_WORKSPACE 0 it allocates nothing else, but for\n"
                 " * the GEMM kernels' packing space, made at a thread's first product\n"
                 " * and kept.\n"
                 " *\n"
                 " * Link with {library}.o (or lib{library}.a), libadjit_aot_runtime.a and\n"
                 " * -lm{pthread}.\n"
                 " */\n"
                 "#ifndef {guard}\n#define {guard}\n\n"
                 "#include <stdbool.h>\n#include <stdint.h>\n\n"
                 "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n"
                 "#ifndef ADJIT_AOT_STATUS_DEFINED\n#define ADJIT_AOT_STATUS_DEFINED\n"
                 "enum adjit_aot_status {{\n"
                 "  ADJIT_AOT_OK = {ok},\n"
                 "  ADJIT_AOT_NULL_ARGUMENT = {null_argument},"
                 " /* an input or output pointer was NULL */\n"
                 "  ADJIT_AOT_OUT_OF_MEMORY = {out_of_memory}, "
                 " /* a temporary buffer could not be allocated */\n"
                 "  ADJIT_AOT_MISALIGNED_WORKSPACE = {misaligned} "
                 " /* the workspace is not aligned to NAME_WORKSPACE_ALIGNMENT */\n"
                 "}};\n#endif\n",
                 fmt::arg("library", library), fmt::arg("version", ADJIT_VERSION),
                 fmt::arg("threads", threads_text(threads)),
                 fmt::arg("pthread", threads == 1 ? "" : " -pthread"),
                 fmt::arg("guard", guard), fmt::arg("ok", static_cast<int>(ADJIT_AOT_OK)),
                 fmt::arg("null_argument", static_cast<int>(ADJIT_AOT_NULL_ARGUMENT)),
                 fmt::arg("out_of_memory", static_cast<int>(ADJIT_AOT_OUT_OF_MEMORY)),
                 fmt::arg("misaligned", static_cast<int>(ADJIT_AOT_MISALIGNED_WORKSPACE)));
  for (auto [s, workspace] : llvm::zip(functions, workspaces)) {
    fmt::format_to(h, "\n/* {}\n", s.name);
    auto list = [&](const char* kind, const std::vector<TensorType>& types) {
      for (size_t i = 0; i < types.size(); ++i)
        fmt::format_to(h, " *   {}{}: {}\n", kind, i, types[i].str());
    };
    list("in", s.inputs);
    list("out", s.outputs);
    fmt::format_to(h, " */\n#define {0}_NUM_INPUTS {1}\n#define {0}_NUM_OUTPUTS {2}\n", s.name,
                   s.inputs.size(), s.outputs.size());
    auto constants = [&](const char* kind, const std::vector<TensorType>& types) {
      for (size_t i = 0; i < types.size(); ++i) {
        std::string prefix = fmt::format("{}_{}{}", s.name, kind, i);
        fmt::format_to(h, "#define {}_RANK {}\n", prefix, types[i].shape.size());
        if (!types[i].shape.empty())
          fmt::format_to(h, "#define {}_SHAPE {{{}}}\n", prefix, fmt::join(types[i].shape, ", "));
        fmt::format_to(h, "#define {}_ELEMENTS {}\n", prefix, num_elements(types[i].shape));
      }
    };
    constants("IN", s.inputs);
    constants("OUT", s.outputs);
    std::vector<std::string> parameters;
    auto add_parameters = [&](const char* qualifier, const char* kind,
                              const std::vector<TensorType>& types) {
      for (size_t i = 0; i < types.size(); ++i)
        parameters.push_back(fmt::format("{}{}* {}{}", qualifier, c_type(types[i].dtype), kind, i));
    };
    add_parameters("const ", "in", s.inputs);
    add_parameters("", "out", s.outputs);
    std::vector<std::string> with_workspace = parameters;
    with_workspace.push_back("void* workspace");
    if (parameters.empty()) parameters.push_back("void");
    fmt::format_to(h,
                   "#define {0}_WORKSPACE_BYTES {2}\n"
                   "#define {0}_WORKSPACE_ALIGNMENT {3}\n"
                   "#define {0}_ALLOCATES_WITH_WORKSPACE {4}\n"
                   "int {0}({1});\n"
                   "int {0}_call(const void* const* inputs, void* const* outputs);\n"
                   "int {0}_with_workspace({5});\n",
                   s.name, fmt::join(parameters, ", "), workspace.bytes, workspace.alignment,
                   workspace.other_temporaries ? 1 : 0, fmt::join(with_workspace, ", "));
  }
  fmt::format_to(h, "\n#ifdef __cplusplus\n}}  /* extern \"C\" */\n#endif\n\n#endif /* {} */\n",
                 guard);
  return text;
}

// Written next to its final name, then renamed: a reader never sees half a file.
void write_atomically(const fs::path& path, const std::string& bytes) {
  fs::path temporary = path;
  temporary += ".tmp";
  adjit::write_file(temporary.string(), bytes);
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) throw Error(fmt::format("cannot write '{}': {}", path.string(), error.message()));
}

int parse_threads(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n < 0 || n > threads::kMaxThreads)
    throw RuntimeError(fmt::format("{} must be an integer from 0 to {}, got '{}'", flag,
                                   threads::kMaxThreads, text));
  return static_cast<int>(n);
}

std::string archive_of(const std::string& object, const std::string& member_name) {
  std::vector<llvm::NewArchiveMember> members;
  members.emplace_back(llvm::MemoryBufferRef(llvm::StringRef(object), member_name));
  auto archive = llvm::writeArchiveToBuffer(members, llvm::SymtabWritingMode::NormalSymtab,
                                            llvm::object::Archive::K_GNU,
                                            /*Deterministic=*/true, /*Thin=*/false);
  if (!archive)
    throw CompileError(
        fmt::format("cannot write a static library: {}", llvm::toString(archive.takeError())));
  return std::string((*archive)->getBuffer());
}

}  // namespace

AotOptions AotOptions::named(std::string function_name, SourceLocation loc) const {
  AotOptions copy = *this;
  copy.name = std::move(function_name);
  copy.location = loc;
  return copy;
}

AotOptions AotOptions::from_command_line(int argc, char** argv, SourceLocation loc) {
  AotOptions options;
  options.location = loc;
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    auto value = [&](const std::string& flag) -> std::optional<std::string> {
      if (word == flag) {
        if (i + 1 >= argc) throw RuntimeError(fmt::format("{} needs a value", flag));
        return std::string(argv[++i]);
      }
      if (word.rfind(flag + "=", 0) == 0) return word.substr(flag.size() + 1);
      return std::nullopt;
    };
    if (auto v = value("-o")) options.output_dir = *v;
    else if (auto v = value("--target-cpu")) options.target_cpu = *v;
    else if (auto v = value("--mattr")) options.target_features = *v;
    else if (auto v = value("--tune-cpu")) options.tune_cpu = *v;
    else if (auto v = value("--threads")) options.threads = parse_threads(*v, "--threads");
    else if (word == "--static-library") options.static_library = true;
    else
      throw RuntimeError(fmt::format(
          "unknown generator argument '{}'; a generator takes -o DIR, --target-cpu=CPU, "
          "--mattr=FEATURES, --tune-cpu=CPU, --threads=N and --static-library",
          word));
  }
  return options;
}

void check_function_name(const std::string& name) {
  if (name.empty())
    throw CompileError("AotOptions::name is empty: it names the files, and the function that "
                       "aot::compile traces (AotOptions{.name = \"step\"})");
  if (!can_name_c_function(name))
    throw CompileError(fmt::format(
        "ahead-of-time name '{}' cannot name a C function ({}); it names the files, and "
        "the function that aot::compile traces",
        name, kNameRule));
}

AotResult write(const Program& program, const AotOptions& options,
                const std::vector<std::string>& entries) {
  check_function_name(options.name);
  if (options.threads < 0 || options.threads > threads::kMaxThreads)
    throw CompileError(fmt::format(
        "AotOptions::threads (adjit aot --threads) of '{}' is {}; it must be 0 (ADJIT_NUM_THREADS, "
        "else every core at run time), 1 (the calling thread) or at most {}",
        options.name, options.threads, threads::kMaxThreads));
  if (program.options().target != Device::Kind::cpu)
    throw CompileError("ahead-of-time compilation supports the cpu target only; GPU kernels "
                       "are not exported yet (compile them with --target=cuda --emit=cubin)");
  std::vector<Signature> functions = select_entries(program, options, entries);

  CompileOptions compile_options = program.options();
  compile_options.target_cpu = options.target_cpu;
  compile_options.target_features = options.target_features;
  compile_options.tune_cpu = options.tune_cpu;
  compile_options.threads = options.threads != 1;
  detail::LentTargetMachine machine =
      detail::lend_target_machine(options.target_cpu, options.target_features,
                                  detail::Linking::into_programs);
  mlir::OwningOpRef<mlir::ModuleOp> lowered =
      detail::ProgramInternals::lower(program, compile_options, mlir::adjit::Stage::llvm);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module =
      detail::translate(*lowered, context, *machine, options.tune_cpu);

  // Optimized as the JIT optimizes it, before the exported functions exist:
  // inlined into them, the kernels could be vectorized differently (float
  // sums may be reassociated), and results would differ from the JIT's.
  detail::optimize(*module, *machine);
  std::vector<llvm::Function*> entry_functions;
  for (const Signature& s : functions) {
    llvm::Function* entry = module->getFunction(mlir::adjit::entryPointName(s.name));
    if (!entry)
      throw CompileError(fmt::format("internal error: no entry point for '{}'", s.name));
    entry_functions.push_back(entry);
  }
  internalize(*module);
  lend_arenas(*module);
  std::vector<Workspace> workspaces;
  for (size_t i = 0; i < functions.size(); ++i) {
    workspaces.push_back(workspace_of(entry_functions[i]));
    emit_list_function(*module, functions[i],
                       emit_typed_function(*module, functions[i], entry_functions[i],
                                           options.threads));
    emit_typed_function(*module, functions[i], entry_functions[i], options.threads,
                        &workspaces.back());
  }
  detail::erase_unused_functions(*module);
  std::string object = detail::emit_machine_code(*module, *machine, /*assembly=*/false);

  // The stages first, so that a dump that fails leaves no outputs behind
  // (AotOptions::dump_dir holds this export's stages alone; ADJIT_DUMP_DIR,
  // shared with every jit compilation, gets them under an "aot-NAME-" prefix).
  std::string dump_dir = options.dump_dir, prefix;
  if (const char* shared = std::getenv("ADJIT_DUMP_DIR"); dump_dir.empty() && shared && *shared) {
    dump_dir = shared;
    prefix = "aot-" + options.name + "-";
  }
  if (!dump_dir.empty()) {
    detail::ProgramInternals::dump(program, compile_options, dump_dir, prefix);
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, nullptr);
    write_atomically(fs::path(dump_dir) / (prefix + "aot.ll"), text);
  }

  fs::path dir(options.output_dir);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error)
    throw Error(
        fmt::format("cannot create output directory '{}': {}", dir.string(), error.message()));
  AotResult result;
  result.functions = functions;
  fs::path object_path = dir / (options.static_library ? "lib" + options.name + ".a" : options.name + ".o");
  write_atomically(object_path, options.static_library ? archive_of(object, options.name + ".o") : object);
  fs::path header_path = dir / (options.name + ".h");
  write_atomically(header_path, header_text(options.name, functions, workspaces, options.threads));
  result.object_path = object_path.string();
  result.header_path = header_path.string();
  return result;
}

}  // namespace adjit::aot
