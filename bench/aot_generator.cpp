// adjit-aot-bench's kernels: W1's value and gradient, W2's training step and
// W3's value and gradient (bench/workloads.h), each exported twice: NAME_serial
// runs on the calling thread, NAME_team on up to ADJIT_NUM_THREADS threads,
// else every core (AotOptions::threads = 0). Run by adjit_add_aot_library.
#include "workloads.h"

#include <adjit/adjit.h>

#include <string>

using adjit::Array;
using adjit::DType;
using adjit::aot::AotOptions;

int main(int argc, char** argv) {
  AotOptions options = AotOptions::from_command_line(argc, argv);
  auto export_both = [&](const std::string& name, auto f, const auto&... args) {
    AotOptions serial = options.named(name + "_serial"), team = options.named(name + "_team");
    serial.threads = 1;
    team.threads = 0;
    adjit::aot::compile(f, serial, args...);
    adjit::aot::compile(f, team, args...);
  };
  export_both("w1", adjit::value_and_grad(bench::w1_function),
              Array::randn({bench::w1_size(false)}, 1));
  bench::MlpSizes z = bench::w2_sizes(false);
  export_both("w2", bench::w2_step, bench::w2_params(z), Array::randn({z.batch, z.in}, 1),
              Array::uniform({z.batch}, 2, 0, static_cast<double>(z.classes), DType::i32));
  auto [rows, cols] = bench::w3_sizes(false);
  export_both("w3", adjit::value_and_grad<0, 1, 2>(bench::w3_loss), Array::randn({rows, cols}, 1),
              Array::randn({cols}, 2), Array::randn({cols}, 3), Array::randn({rows, cols}, 4));
}
