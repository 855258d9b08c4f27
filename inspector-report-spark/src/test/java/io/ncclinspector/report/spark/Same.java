package io.ncclinspector.report.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Field-by-field comparison of the two engines' result records. Integers, text and flags must be
 * equal; floating-point values equal to a relative 1e-9 (sums and means of doubles are added up
 * in a different order by each engine). Percentile fields can be left out, to be checked against
 * the data instead (Spark's are approximate).
 */
final class Same {
  private Same() {}

  static final double RELATIVE = 1e-9;

  /** Compares two lists matched by key; both must have the same keys. */
  static <T extends Record> void lists(String what, List<T> duck, List<T> spark,
      Function<T, Object> key, Set<String> skip) {
    Map<Object, T> byKey = new LinkedHashMap<>();
    spark.forEach(s -> byKey.put(key.apply(s), s));
    assertEquals(duck.size(), spark.size(), what + ": number of rows");
    assertEquals(duck.size(), byKey.size(), what + ": keys are unique");
    for (T d : duck) {
      T s = byKey.get(key.apply(d));
      assertNotNull(s, what + ": Spark has no row " + key.apply(d));
      record(what + " " + key.apply(d), d, s, skip);
    }
  }

  static void record(String what, Record duck, Record spark, Set<String> skip) {
    for (RecordComponent c : duck.getClass().getRecordComponents()) {
      if (skip.contains(c.getName())) {
        continue;
      }
      Object a = get(c, duck);
      Object b = get(c, spark);
      value(what + "." + c.getName(), a, b);
    }
  }

  static void value(String what, Object a, Object b) {
    if (a instanceof Double x && b instanceof Double y) {
      doubles(what, x, y);
    } else if (a instanceof Float || b instanceof Float) {
      throw new AssertionError("unexpected float in " + what);
    } else {
      assertEquals(a, b, what);
    }
  }

  static void doubles(String what, double a, double b) {
    if (Double.isNaN(a) || Double.isNaN(b)) {
      assertTrue(Double.isNaN(a) && Double.isNaN(b), what + ": " + a + " vs " + b);
      return;
    }
    double tolerance = Math.max(Math.abs(a), Math.abs(b)) * RELATIVE + 1e-12;
    assertEquals(a, b, tolerance, what);
  }

  private static Object get(RecordComponent c, Record r) {
    try {
      return c.getAccessor().invoke(r);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
