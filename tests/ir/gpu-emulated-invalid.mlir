// The emulation runs only what it can run exactly: a launch whose sizes are
// not constants, a synchronisation inside a nested region (a barrier some
// threads might not reach) other than a loop without results whose bounds
// every thread shares, or an all-reduce of a value the threads do not
// compute or with a combining region, is an error naming the op, emitted
// before the IR changes.
// RUN: adjit-opt %s -split-input-file -verify-diagnostics --adjit-emulate-gpu-launches

func.func @dynamic_grid(%n: index, %y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{has a grid or block size that is not a constant}}
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %n, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @nested_barrier(%y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %first = arith.cmpi eq, %t0, %c1 : index
    // expected-error @+1 {{synchronises inside a nested region, which the emulation does not run}}
    scf.if %first {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @barrier_in_thread_dependent_loop(%y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    // expected-error @+1 {{synchronises inside a nested region, which the emulation does not run (only inside a loop without results whose bounds every thread shares)}}
    scf.for %i = %c0 to %t0 step %c1 {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @reduce_of_host_value(%v: f32) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    // expected-error @+1 {{reduces a value no segment computes per thread, which the emulation does not run}}
    %sum = gpu.all_reduce add %v uniform {} : (f32) -> f32
    gpu.terminator
  }
  return
}

// -----

func.func @reduce_with_region(%y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %y[%t0] : memref<4xf32>
    // expected-error @+1 {{with a region is not emulated}}
    %sum = gpu.all_reduce %v uniform {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      gpu.yield %r : f32
    } : (f32) -> f32
    gpu.terminator
  }
  return
}
