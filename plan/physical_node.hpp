// The physical plan: a tree of operator nodes that both runs and explains
// itself. The planner (plan/planner.hpp) builds it from a bound SELECT; each
// node compiles its expression programs and chooses its kernels when it is
// built, runs exactly those, and prints them for EXPLAIN.
//
//   RowNode     produces rows (a RowSet of row ids per source): scan,
//               filter, hash join, DISTINCT, ORDER BY / top-k, LIMIT.
//   ResultNode  produces the query's result on the host: the rows' outputs,
//               an ungrouped aggregation, a GROUP BY.
//
// Kernels() lists, by name, every kernel a node launches for inputs up to
// its row bound; a node launches fewer when the data makes a step needless
// (an empty input, digits no key varies in), and switches only where its
// description says so (a join whose build keys turn out to repeat). Nodes
// are immutable once built; Run may be called again. Not thread-safe.
#pragma once

#include <chrono>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/options.hpp"
#include "operators/query_context.hpp"
#include "operators/query_result.hpp"
#include "plan/compiled_expressions.hpp"
#include "plan/row_set.hpp"
#include "runtime/engine.hpp"
#include "sql/bound.hpp"

namespace clq {

class PhysicalNode;

// State of one run of a plan: the engine, the query's context (options,
// status word) and which node the kernels being launched belong to.
class ExecutionContext {
 public:
  ExecutionContext(Engine& engine, const QueryOptions& options) : query_(engine, options) {}
  Engine& engine() { return query_.engine(); }
  QueryContext& query() { return query_; }
  const QueryOptions& options() const { return query_.options(); }

  // Makes `node` the owner of the launches until the scope ends, and records
  // the scope's wall time as the node's (StageKind::kNodeWall) in an active
  // profile. A node opens its scope after its children have run.
  class NodeScope {
   public:
    NodeScope(ExecutionContext& context, const PhysicalNode& node);
    ~NodeScope();
    NodeScope(const NodeScope&) = delete;
    NodeScope& operator=(const NodeScope&) = delete;

   private:
    ExecutionContext& context_;
    const PhysicalNode* previous_;
    const PhysicalNode& node_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  };
  const PhysicalNode* current_node() const { return current_; }

  // Set while a streaming node runs its input one chunk of tablets at a
  // time ({first tablet, count}): the scan keeps those tablets only.
  const std::optional<std::pair<std::size_t, std::size_t>>& scan_tablets() const {
    return scan_tablets_;
  }
  void set_scan_tablets(std::optional<std::pair<std::size_t, std::size_t>> tablets) {
    scan_tablets_ = tablets;
  }
  // The FROM sources scans read: the statement's, or, while a partitioned
  // join runs one partition (plan/join_partitions.hpp), the same sources
  // with the joined tables replaced by that partition's rows of them.
  const std::vector<sql::TableRef>& sources(const sql::BoundSelect& select) const {
    return sources_ != nullptr ? *sources_ : select.from;
  }
  void set_sources(const std::vector<sql::TableRef>* sources) { sources_ = sources; }

 private:
  QueryContext query_;
  const PhysicalNode* current_ = nullptr;
  std::optional<std::pair<std::size_t, std::size_t>> scan_tablets_;
  const std::vector<sql::TableRef>* sources_ = nullptr;
};

class PhysicalNode {
 public:
  virtual ~PhysicalNode() = default;
  // The operator: "Filter", "HashJoin", ...
  virtual std::string Name() const = 0;
  // What it does, on one line.
  virtual std::string Describe() const = 0;
  // The expression programs it runs, listed for EXPLAIN (title, then the
  // disassembly); empty when it runs none.
  virtual std::string Programs() const { return {}; }
  // Kernel names: those it launches for inputs within its bounds, and those
  // it launches only when the sizes or the data call for them.
  const KernelSet& Kernels() const { return kernels_; }
  const std::vector<PhysicalNode*>& children() const { return children_; }
  // Pre-order position in the plan (the root is 0), set by PhysicalPlan.
  std::size_t id() const { return id_; }
  void set_id(std::size_t id) { id_ = id; }

 protected:
  void AddChild(PhysicalNode* child) { children_.push_back(child); }
  void AddKernelNames(const KernelSet& names, bool when_needed = false) {
    kernels_.Add(names, when_needed);
  }
  void AddKernelNames(std::initializer_list<std::string> names) { kernels_.Add(KernelSet(names)); }

 private:
  std::vector<PhysicalNode*> children_;
  KernelSet kernels_;
  std::size_t id_ = 0;
};

class RowNode : public PhysicalNode {
 public:
  explicit RowNode(RowShape shape) : shape_(shape) {}
  // The rows it produces, as known at plan time.
  const RowShape& shape() const { return shape_; }
  virtual RowSet Run(ExecutionContext& context) const = 0;

 protected:
  RowShape shape_;
};

class StreamedGroups;

// A result whose partial results over parts of the input's rows merge
// exactly, in the parts' order, into the result over every row: the groups
// of a GROUP BY, and an ungrouped aggregate (as one group without keys),
// where every aggregate merges (plan/streamed_groups.hpp). Several devices
// each run a part of a table's rows this way (plan/device_split.hpp).
class MergeableResult {
 public:
  virtual ~MergeableResult() = default;
  // No groups yet, with this node's aggregates.
  virtual StreamedGroups NoGroups() const = 0;
  // Adds the groups of the rows its input gives in `context` to `groups`.
  virtual void AddGroups(ExecutionContext& context, StreamedGroups& groups) const = 0;
  // The query's result from the groups of every part.
  virtual QueryResult Finish(ExecutionContext& context, const StreamedGroups& groups) const = 0;
};

class ResultNode : public PhysicalNode {
 public:
  virtual QueryResult Run(ExecutionContext& context) const = 0;
  // This node as a result that merges from parts; null where it does not
  // (its aggregates do not merge exactly, or it is not an aggregation).
  virtual const MergeableResult* Mergeable() const { return nullptr; }
};

}  // namespace clq
