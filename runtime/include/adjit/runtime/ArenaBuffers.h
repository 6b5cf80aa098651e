#ifndef ADJIT_RUNTIME_ARENABUFFERS_H
#define ADJIT_RUNTIME_ARENABUFFERS_H

/* The buffers of a compiled function's arena (adjit-plan-buffers places
   each temporary at an offset fixed at compile time). The LLVM IR that
   adjit optimizes calls these instead of computing `arena + offset` itself
   because LLVM sees their declarations (noalias result; only their own
   memory and the argument's touched) as an allocation and a deallocation,
   and so keeps the buffers of one arena apart as separate objects. They do
   no other work, and code generation replaces each call by what it would
   do (compiler/lib/ArenaAddresses.h): objects do not call them. They stay
   in libadjit_aot_runtime for objects made by adjit before 2026-12-06. */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The buffer `offset` bytes into `arena`. */
void* adjit_arena_buffer(void* arena, int64_t offset);

/* The end of `buffer`'s life: nothing to do at run time. */
void adjit_arena_release(void* buffer);

#ifdef __cplusplus
}
#endif

#endif
