// Dim / DerivedDim against PyTorch 2.14: the expected values and texts are those torch.export.Dim
// printed in tests/fixtures/dims.txt (tools/oracle/scripts/dims.py): ranges, names, repr, errors.
#include <gtest/gtest.h>

#include "test_util.h"

#include "fakeexport/core/error.h"
#include "fakeexport/sym/dims.h"

namespace {
using fe::Dim;
using fe::DerivedDim;
using fe::kIntOo;
using fe_test::what_of;

TEST(SymDims, NamedDimsAndRepr) {
  Dim dx("dx", 4, 256);
  EXPECT_EQ(dx.repr(), "Dim('dx', min=4, max=256)");
  EXPECT_EQ(Dim("dx").repr(), "Dim('dx', min=0)");  // default min 0, max int_oo
  EXPECT_EQ(Dim("dx").max(), kIntOo);
  EXPECT_EQ(Dim("dx", 0, 512).repr(), "Dim('dx', min=0, max=512)");
  EXPECT_EQ(Dim("q", 2).repr(), "Dim('q')");
  EXPECT_EQ(Dim("q", 2, 10).repr(), "Dim('q', max=10)");
  EXPECT_EQ(Dim("dx", -1).repr(), "Dim('dx', min=-1)");  // PyTorch accepts a negative min
  auto ab = fe::dims({"a", "b"}, 2, 9);
  ASSERT_EQ(ab.size(), 2u);
  EXPECT_EQ(ab[1].repr(), "Dim('b', max=9)");
}

TEST(SymDims, DerivedDimsNamesAndRanges) {
  Dim dx("dx", 4, 256);
  DerivedDim a = 2 * dx;
  EXPECT_EQ(a.name(), "2*dx");
  EXPECT_EQ(a.min(), 8);
  EXPECT_EQ(a.max(), 512);
  DerivedDim b = 2 * dx + 1;
  EXPECT_EQ(b.name(), "2*dx + 1");
  EXPECT_EQ(b.min(), 9);
  EXPECT_EQ(b.max(), 513);
  EXPECT_EQ((dx - 1).name(), "dx - 1");
  EXPECT_EQ((dx - 1).min(), 3);
  EXPECT_EQ((dx + 2).name(), "dx + 2");
  EXPECT_EQ((2 * (dx + 1)).name(), "2*dx + 2");
  EXPECT_EQ((2 * (dx + 1)).max(), 514);
  DerivedDim c = (2 * Dim("dx")) * 3;
  EXPECT_EQ(c.name(), "6*dx");
  EXPECT_EQ(c.min(), 0);
  EXPECT_EQ(c.max(), kIntOo);
}

TEST(SymDims, ErrorsMatchPyTorch) {
  EXPECT_EQ(what_of([] { Dim("dx", 5, 3); }), "Cannot create Dim with inconsistent min=5, max=3");
  EXPECT_THROW(Dim("dx", 5, 5), fe::ValueError);
  EXPECT_EQ(what_of([] { Dim("1x"); }), "Dim name must be a valid identifier, got 1x");
  EXPECT_EQ(what_of([] { (void)(Dim("dx") * 0); }),
            "Attempted to multiply 0 with dx, where a positive integer was expected. (Only increasing linear "
            "operations with integer coefficients are supported.)");
  EXPECT_THROW((void)(Dim("dx") * -2), fe::ValueError);
  EXPECT_EQ(what_of([] { (void)(Dim("dx", 4, 256) - 10); }),
            "Expected derived min value of dx - 10 to be >= 0. Please specify an appropriate min value for dx "
            "(currently 4).");
  EXPECT_EQ(what_of([] { (void)(Dim("big", 3, int64_t{1} << 62) * 4); }),
            "Expected derived max value of 4*big to be <= 9223372036854775806. Please specify an appropriate max "
            "value for big (currently 4611686018427387904).");
}

}  // namespace
