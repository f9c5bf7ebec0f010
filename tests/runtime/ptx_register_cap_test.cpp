#include "runtime/ptx_register_cap.hpp"

#include <gtest/gtest.h>

namespace clq {
namespace {

// Two kernels as NVIDIA's OpenCL driver writes them, one with a work-group
// size directive, and a device function, which takes no register cap.
constexpr const char* kPtx = R"(.version 8.5
.target sm_90
.func (.param .b64 func_retval0) helper(.param .b64 helper_param_0)
{
	ret;
}
.entry first(
	.param .u64 .ptr .global .align 4 first_param_0,
	.param .u64 first_param_1
)
{
	ret;
}
.entry second(
	.param .u64 second_param_0
)
.reqntid 256, 1, 1
{
	ret;
}
)";

TEST(PtxRegisterCapTest, EveryEntryGetsTheDirectiveBeforeItsBody) {
  const std::optional<std::string> capped = CapPtxRegisters(kPtx, 64);
  ASSERT_TRUE(capped);
  const std::string& ptx = *capped;
  EXPECT_NE(ptx.find("first_param_1\n)\n.maxnreg 64\n{"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".reqntid 256, 1, 1\n.maxnreg 64\n{"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("helper_param_0)\n{"), std::string::npos) << ptx;  // .func untouched
  std::size_t count = 0;
  for (std::size_t at = ptx.find(".maxnreg"); at != std::string::npos;
       at = ptx.find(".maxnreg", at + 1))
    ++count;
  EXPECT_EQ(count, 2u);
  // Nothing else changed.
  std::string stripped = ptx;
  for (std::size_t at = stripped.find(".maxnreg 64\n"); at != std::string::npos;
       at = stripped.find(".maxnreg 64\n"))
    stripped.erase(at, 12);
  EXPECT_EQ(stripped, kPtx);
}

TEST(PtxRegisterCapTest, AnExistingCapIsKeptAndTextWithoutEntriesIsRefused) {
  const std::optional<std::string> once = CapPtxRegisters(kPtx, 64);
  ASSERT_TRUE(once);
  EXPECT_EQ(CapPtxRegisters(*once, 48), once);
  EXPECT_FALSE(CapPtxRegisters("", 64));
  EXPECT_FALSE(
      CapPtxRegisters("\x7f"
                      "ELF binary",
                      64));
  EXPECT_FALSE(CapPtxRegisters(".entry broken(\n.param .u64 p\n", 64));
}

}  // namespace
}  // namespace clq
