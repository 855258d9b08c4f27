package io.ncclinspector.examples.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ArgsTest {
  @Test
  void sizesTakeBinaryUnits() {
    assertEquals(8, Sizes.parse("8"));
    assertEquals(8192, Sizes.parse("8K"));
    assertEquals(65536, Sizes.parse("64KiB"));
    assertEquals(1L << 30, Sizes.parse("1G"));
    assertEquals(1L << 20, Sizes.parse("1mb"));
    assertThrows(NumberFormatException.class, () -> Sizes.parse("K"));
    assertThrows(NumberFormatException.class, () -> Sizes.parse("12Q"));
    assertEquals("64 KiB", Sizes.label(65536));
    assertEquals("1.5 MiB", Sizes.label(3L << 19));
    assertEquals("8 B", Sizes.label(8));
  }

  @Test
  void geometricSizesIncludeBothEnds() {
    assertEquals(List.of(8L, 32L, 128L), Sizes.geometric(8, 128, 4));
    assertEquals(15, Sizes.geometric(8, 1L << 30, 4).size());
    assertEquals(List.of(1L << 29, 1L << 30), Sizes.geometric(8, 1L << 30, 4).subList(13, 15));
    assertEquals(List.of(8192L, 32768L, 131072L, 524288L, 2097152L, 8388608L, 33554432L),
        Sizes.geometric(8192, 32L << 20, 4));
    assertThrows(IllegalArgumentException.class, () -> Sizes.geometric(0, 8, 2));
    assertThrows(IllegalArgumentException.class, () -> Sizes.geometric(8, 4, 2));
  }

  @Test
  void optionsAndFlags() {
    Args a = Args.parse(new String[] {"--rank", "1", "--cupti", "--sizes", "8K,1M", "--tol", "2.5"}, "cupti", "dry-run");
    assertEquals(1, a.integer("rank", -1));
    assertTrue(a.flag("cupti"));
    assertFalse(a.flag("dry-run"));
    assertEquals(List.of(8192L, 1L << 20), a.sizes("sizes", ""));
    assertEquals(2.5, a.decimal("tol", 0));
    assertEquals(7, a.integer("absent", 7));
    a.rejectUnknown();
  }

  @Test
  void unknownAndMalformedOptionsFail() {
    Args a = Args.parse(new String[] {"--rank", "0", "--ranlk", "2"});
    a.integer("rank", 0);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, a::rejectUnknown);
    assertTrue(e.getMessage().contains("--ranlk"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Args.parse(new String[] {"rank", "0"}));
    assertThrows(IllegalArgumentException.class, () -> Args.parse(new String[] {"--rank"}));
    assertThrows(IllegalArgumentException.class, () -> Args.parse(new String[] {"--rank", "0", "--rank", "1"}));
    assertThrows(IllegalArgumentException.class, () -> Args.parse(new String[] {"--n", "x"}).integer("n", 0));
    assertThrows(IllegalArgumentException.class, () -> Args.parse(new String[] {}).required("out"));
  }
}
