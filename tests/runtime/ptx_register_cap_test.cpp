#include "runtime/ptx_register_cap.hpp"

#include <gtest/gtest.h>

#include "runtime/errors.hpp"

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

TEST(PtxRegisterCapTest, NamedKernelsTakeTheirOwnCapAndTheRestTheCommonOne) {
  PtxRegisterCaps caps;
  caps.by_kernel["second"] = 72;
  std::optional<std::string> capped = CapPtxRegisters(kPtx, caps);
  ASSERT_TRUE(capped);
  EXPECT_NE(capped->find("first_param_1\n)\n{"), std::string::npos) << *capped;  // not named
  EXPECT_NE(capped->find(".reqntid 256, 1, 1\n.maxnreg 72\n{"), std::string::npos) << *capped;
  caps.all = 40;
  capped = CapPtxRegisters(kPtx, caps);
  ASSERT_TRUE(capped);
  EXPECT_NE(capped->find("first_param_1\n)\n.maxnreg 40\n{"), std::string::npos) << *capped;
  EXPECT_NE(capped->find(".reqntid 256, 1, 1\n.maxnreg 72\n{"), std::string::npos) << *capped;
  // A name that is only a prefix of an entry's does not match it, and a cap
  // for no kernel of the program is refused.
  PtxRegisterCaps prefix;
  prefix.by_kernel["fir"] = 64;
  EXPECT_THROW(CapPtxRegisters(kPtx, prefix), InvalidInputError);
  prefix.by_kernel["helper"] = 64;  // a .func, not an entry
  prefix.by_kernel.erase("fir");
  EXPECT_THROW(CapPtxRegisters(kPtx, prefix), InvalidInputError);
}

TEST(PtxRegisterCapTest, ParsesCountsAndNamedCapsAndRefusesTheRest) {
  const PtxRegisterCaps all = ParsePtxRegisterCaps("64", "CAPS");
  EXPECT_EQ(all.all, std::optional<unsigned>(64));
  EXPECT_TRUE(all.by_kernel.empty());
  const PtxRegisterCaps mixed =
      ParsePtxRegisterCaps("vm_filter_untracked=48,72,vm_aggregate=96", "CAPS");
  EXPECT_EQ(mixed.all, std::optional<unsigned>(72));
  EXPECT_EQ(mixed.by_kernel.size(), 2u);
  EXPECT_EQ(mixed.by_kernel.at("vm_filter_untracked"), 48u);
  EXPECT_EQ(mixed.by_kernel.at("vm_aggregate"), 96u);
  EXPECT_EQ(mixed.ToString(), "vm_aggregate=96,vm_filter_untracked=48,72");
  EXPECT_EQ(ParsePtxRegisterCaps(mixed.ToString(), "CAPS").ToString(), mixed.ToString());
  EXPECT_EQ(ParsePtxRegisterCaps(" vm_a=40 , 72 ", "CAPS").ToString(), "vm_a=40,72");
  for (const char* bad :
       {"", "15", "256", "64x", "=64", "a=", "a=64,a=72", "64,72", "64,", "-64", "a=+64"}) {
    EXPECT_THROW(ParsePtxRegisterCaps(bad, "CAPS"), InvalidInputError) << bad;
  }
}

}  // namespace
}  // namespace clq
