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

// The type of Project's vector for an entry: DOUBLE for REAL, INT32 for an
// INTEGER proven to fit 32 bits (half the bytes to write and read again),
// else INT64.
ColumnType ProjectedType(const VmEntry& entry);

// The kernel Project launches for `entry_index` of `program`.
std::string ProjectKernel(const ExpressionProgram& program, std::size_t entry_index,
                          const QueryOptions& options);

DeviceVector Project(QueryContext& context, Relation& relation, const DeviceProgram& program,
                     std::size_t entry);

}  // namespace clq
