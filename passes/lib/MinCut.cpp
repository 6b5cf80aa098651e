#include "MinCut.h"

#include <algorithm>
#include <deque>

namespace mlir::adjit {

int FlowGraph::addNode() {
  edges_.emplace_back();
  return static_cast<int>(edges_.size()) - 1;
}

void FlowGraph::addEdge(int from, int to, int64_t capacity) {
  edges_[from].push_back(static_cast<int>(arcs_.size()));
  arcs_.push_back({to, capacity});
  edges_[to].push_back(static_cast<int>(arcs_.size()));
  arcs_.push_back({from, 0});
}

bool FlowGraph::levelGraph(int source, int sink) {
  level_.assign(edges_.size(), -1);
  std::deque<int> queue{source};
  level_[source] = 0;
  while (!queue.empty()) {
    int node = queue.front();
    queue.pop_front();
    for (int arc : edges_[node])
      if (arcs_[arc].capacity > 0 && level_[arcs_[arc].to] < 0) {
        level_[arcs_[arc].to] = level_[node] + 1;
        queue.push_back(arcs_[arc].to);
      }
  }
  return level_[sink] >= 0;
}

// One blocking-flow path search of Dinic's algorithm, iterative over the
// path so that long chains do not recurse deeply.
int64_t FlowGraph::push(int source, int sink, int64_t limit) {
  std::vector<int> path;  // arcs from the source
  int node = source;
  while (true) {
    if (node == sink) {
      int64_t flow = limit;
      for (int arc : path)
        flow = std::min(flow, arcs_[arc].capacity);
      for (int arc : path) {
        arcs_[arc].capacity -= flow;
        arcs_[arc ^ 1].capacity += flow;
      }
      return flow;
    }
    bool advanced = false;
    for (int &i = next_[node]; i < static_cast<int>(edges_[node].size()); ++i) {
      int arc = edges_[node][i];
      int to = arcs_[arc].to;
      if (arcs_[arc].capacity > 0 && level_[to] == level_[node] + 1) {
        path.push_back(arc);
        node = to;
        advanced = true;
        break;
      }
    }
    if (advanced)
      continue;
    // A dead end: no path through `node` in this level graph.
    level_[node] = -1;
    if (path.empty())
      return 0;
    node = arcs_[path.back() ^ 1].to;
    path.pop_back();
    ++next_[node];
  }
}

int64_t FlowGraph::maxFlow(int source, int sink) {
  int64_t total = 0;
  while (levelGraph(source, sink)) {
    next_.assign(edges_.size(), 0);
    while (int64_t flow = push(source, sink, kInfinite)) {
      total += flow;
      if (total >= kInfinite)
        return kInfinite;
    }
  }
  return total;
}

std::vector<bool> FlowGraph::sourceSide(int source) const {
  std::vector<bool> reached(edges_.size(), false);
  std::vector<int> stack{source};
  reached[source] = true;
  while (!stack.empty()) {
    int node = stack.back();
    stack.pop_back();
    for (int arc : edges_[node])
      if (arcs_[arc].capacity > 0 && !reached[arcs_[arc].to]) {
        reached[arcs_[arc].to] = true;
        stack.push_back(arcs_[arc].to);
      }
  }
  return reached;
}

} // namespace mlir::adjit
