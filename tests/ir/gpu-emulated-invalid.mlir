// The emulation runs only what it can run exactly: a launch whose sizes are
// not constants, or a synchronisation inside a nested region (a barrier
// some threads might not reach), is an error naming the op.
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
