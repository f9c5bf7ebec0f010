#include "plan/physical_plan.hpp"
#include "plan/text_order_codes.hpp"

#include "common/errors.hpp"
#include "plan/planner.hpp"

namespace clq {
namespace {

void Number(const PhysicalNode& node, std::vector<const PhysicalNode*>& nodes) {
  const_cast<PhysicalNode&>(node).set_id(nodes.size());
  nodes.push_back(&node);
  for (const PhysicalNode* child : node.children())
    Number(*child, nodes);
}

void Print(const PhysicalNode& node, std::size_t depth, std::string& text) {
  const std::string indent(2 * depth, ' ');
  text += indent + node.Name() + ": " + node.Describe() + "\n";
  if (!node.Kernels().empty()) text += indent + "  kernels: " + node.Kernels().ToString() + "\n";
  for (const PhysicalNode* child : node.children())
    Print(*child, depth + 1, text);
}

}  // namespace

ExecutionContext::NodeScope::NodeScope(ExecutionContext& context, const PhysicalNode& node)
    : context_(context), previous_(context.current_), node_(node) {
  context.current_ = &node;
}

ExecutionContext::NodeScope::~NodeScope() {
  Profiler& profiler = context_.engine().profiler();
  if (profiler.active())
    profiler.RecordHost(
        node_.Name() + " #" + std::to_string(node_.id()),
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
            .count(),
        StageKind::kNodeWall);
  context_.current_ = previous_;
}

PhysicalPlan::PhysicalPlan(const Engine& engine, const QueryOptions& options,
                           const sql::BoundSelect& select)
    : options_(options),
      coded_(WithTextOrderCodes(select, options.host_memory)),
      output_logical_(OutputLogicalTypes(select)),
      root_(BuildPhysicalPlan(engine, options, coded_ ? *coded_ : select)) {
  const DeviceTuning& tuning = engine.tuning();
  device_line_ = "device: " + engine.info().name + " (" + engine.info().platform_name + "), " +
                 tuning.Describe() + ", tile " + std::to_string(tuning.tile_size()) + " rows";
  Number(*root_, nodes_);
}

std::string PhysicalPlan::Explain() const {
  std::string text = device_line_ + "\n";
  Print(*root_, 0, text);
  std::string programs;
  for (const PhysicalNode* node : nodes_)
    programs += node->Programs();
  if (!programs.empty()) text += "expression programs:\n" + programs;
  return text;
}

QueryResult PhysicalPlan::Execute(Engine& engine, std::vector<KernelLaunch>* launches) const {
  ExecutionContext context(engine, options_);
  struct Observer {
    Engine& engine;
    ~Observer() { engine.SetLaunchObserver({}); }
  } observer{engine};
  if (launches != nullptr) {
    engine.SetLaunchObserver([&context, launches](std::string_view kernel) {
      const PhysicalNode* node = context.current_node();
      launches->push_back({node != nullptr ? node->id() : 0, std::string(kernel)});
    });
  }
  QueryResult result = root_->Run(context);
  SetOutputTypes(result);
  return result;
}

void PhysicalPlan::SetOutputTypes(QueryResult& result) const {
  SetLogicalTypes(output_logical_, result);
}

}  // namespace clq
