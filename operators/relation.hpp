// The input of an operator: device-resident columns, split into tablets.
//
// TableRelation is a base table (its tablets come from the engine's
// DeviceTableCache and are uploaded on first use); VectorRelation is a set of
// intermediate DeviceVectors of equal length (one tablet). Operators loop over
// tablets and address rows by tablet-relative index; row ids they emit are
// relation-wide (tablet begin + index).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "operators/device_vector.hpp"
#include "operators/expression_program.hpp"
#include "runtime/device_table.hpp"
#include "runtime/engine.hpp"
#include "storage/table.hpp"

namespace clq {

// Column `index` of `table` as the expression machine reads it (nullable
// where the column has a NULL map; bounds from the column's statistics).
VmInputColumn TableVmColumn(const Table& table, std::size_t index);

class Relation {
 public:
  virtual ~Relation() = default;
  virtual std::size_t column_count() const = 0;
  virtual VmInputColumn column(std::size_t index) const = 0;
  virtual const std::string& column_name(std::size_t index) const = 0;
  virtual RowCount rows() const = 0;
  virtual std::vector<Tablet> tablets() const = 0;
  // Values (and NULL map, or a null cl::Buffer when the column has none) of a
  // column in one tablet.
  virtual cl::Buffer values(std::size_t column, std::size_t tablet) = 0;
  virtual cl::Buffer nulls(std::size_t column, std::size_t tablet) = 0;

  std::vector<VmInputColumn> columns() const;
};

class TableRelation : public Relation {
 public:
  TableRelation(Engine& engine, TablePtr table);
  std::size_t column_count() const override { return table_->column_slots(); }
  VmInputColumn column(std::size_t index) const override;
  const std::string& column_name(std::size_t index) const override;
  RowCount rows() const override { return table_->rows(); }
  std::vector<Tablet> tablets() const override { return tablets_; }
  cl::Buffer values(std::size_t column, std::size_t tablet) override;
  cl::Buffer nulls(std::size_t column, std::size_t tablet) override;
  const TablePtr& table() const { return table_; }

 private:
  Engine& engine_;
  TablePtr table_;
  std::vector<Tablet> tablets_;
};

// Tablets [first, first + count) of another relation: a chunk of a table
// that a pipeline streams through. `rebased`: row positions count from the
// chunk's first row (what a projection writes, what a selection emits);
// else they stay the table's row ids (what a gather by row id reads, so
// that it touches the chunk's tablets only).
class TabletRangeRelation : public Relation {
 public:
  TabletRangeRelation(Relation& inner, std::size_t first, std::size_t count, bool rebased);
  std::size_t column_count() const override { return inner_.column_count(); }
  VmInputColumn column(std::size_t index) const override { return inner_.column(index); }
  const std::string& column_name(std::size_t index) const override {
    return inner_.column_name(index);
  }
  RowCount rows() const override { return rows_; }
  std::vector<Tablet> tablets() const override { return tablets_; }
  cl::Buffer values(std::size_t column, std::size_t tablet) override {
    return inner_.values(column, first_ + tablet);
  }
  cl::Buffer nulls(std::size_t column, std::size_t tablet) override {
    return inner_.nulls(column, first_ + tablet);
  }

 private:
  Relation& inner_;
  std::size_t first_;
  std::vector<Tablet> tablets_;
  RowCount rows_ = 0;
};

class VectorRelation : public Relation {
 public:
  VectorRelation() = default;
  void Add(std::string name, DeviceVector vector);
  std::size_t column_count() const override { return vectors_.size(); }
  VmInputColumn column(std::size_t index) const override;
  const std::string& column_name(std::size_t index) const override { return names_.at(index); }
  RowCount rows() const override { return rows_; }
  std::vector<Tablet> tablets() const override { return {{0, rows_}}; }
  cl::Buffer values(std::size_t column, std::size_t tablet) override;
  cl::Buffer nulls(std::size_t column, std::size_t tablet) override;
  DeviceVector& vector(std::size_t index) { return vectors_.at(index); }
  DeviceVector Take(std::size_t index) { return std::move(vectors_.at(index)); }

 private:
  std::vector<std::string> names_;
  std::vector<DeviceVector> vectors_;
  RowCount rows_ = 0;
};

}  // namespace clq
