import os
import lit.formats

config.name = "adjit-ir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.adjit_test_exec_root
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.substitutions.append(("%examples", os.path.join(config.adjit_source_dir, "examples")))

# Our tools first, then FileCheck/not/count from the LLVM installation.
path = os.pathsep.join(config.adjit_tool_dirs + [config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path

# mlir-cpu-runner's printing functions, for the tests that run the GPU
# mapping's kernels on the CPU (gpu-emulated-*.mlir).
config.substitutions.append(
    ("%mlir_runner_utils",
     os.path.join(os.path.dirname(config.llvm_tools_dir), "lib", "libmlir_runner_utils.so")))
