// Projection: one expression evaluated for every row of a relation into a new
// device vector (kernel vm_project), INT64 for INTEGER and DOUBLE for REAL
// results, with a NULL map when the expression can be NULL. Enqueues the
// kernels; overflow is reported at the next QueryContext::CheckStatus().
#pragma once

#include "operators/device_program.hpp"
#include "operators/device_vector.hpp"
#include "operators/query_context.hpp"
#include "operators/relation.hpp"

namespace clq {

DeviceVector Project(QueryContext& context, Relation& relation, const DeviceProgram& program,
                     std::size_t entry);

}  // namespace clq
