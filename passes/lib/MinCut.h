#ifndef ADJIT_PASSES_MINCUT_H
#define ADJIT_PASSES_MINCUT_H

// A minimum source-sink cut of a directed graph with integer capacities
// (Dinic's maximum flow), for adjit-rematerialize.

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace mlir::adjit {

class FlowGraph {
public:
  /// A capacity no cut pays.
  static constexpr int64_t kInfinite = std::numeric_limits<int64_t>::max() / 4;

  explicit FlowGraph(int nodes) : edges_(nodes) {}
  int addNode();
  void addEdge(int from, int to, int64_t capacity);
  /// Pushes the maximum flow from `source` to `sink`; returns its value.
  int64_t maxFlow(int source, int sink);
  /// After maxFlow: the nodes still reachable from the source through
  /// edges with capacity left (the source side of a minimum cut).
  std::vector<bool> sourceSide(int source) const;

private:
  struct Edge {
    int to;
    int64_t capacity;
  };
  bool levelGraph(int source, int sink);
  int64_t push(int node, int sink, int64_t limit);

  std::vector<Edge> arcs_;  // arc i ^ 1 is the reverse of arc i
  std::vector<llvm::SmallVector<int, 4>> edges_;
  std::vector<int> level_, next_;
};

} // namespace mlir::adjit

#endif // ADJIT_PASSES_MINCUT_H
