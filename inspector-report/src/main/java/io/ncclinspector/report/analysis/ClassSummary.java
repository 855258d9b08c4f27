package io.ncclinspector.report.analysis;

/**
 * Performance of one (communication class, operation, message-size bucket) group. Times in
 * microseconds, bandwidths in GB/s; percentiles are exact (interpolated).
 */
public record ClassSummary(
    String commType,
    String kind,
    String op,
    long sizeBucketBytes,
    String sizeBucket,
    long records,
    long communicators,
    long minSizeBytes,
    long maxSizeBytes,
    long totalBytes,
    double execMinUs,
    double execP50Us,
    double execP90Us,
    double execP99Us,
    double execMaxUs,
    double execMeanUs,
    double busbwMinGbs,
    double busbwP05Gbs,
    double busbwP25Gbs,
    double busbwP50Gbs,
    double busbwP75Gbs,
    double busbwP90Gbs,
    double busbwP95Gbs,
    double busbwP99Gbs,
    double busbwMaxGbs,
    double busbwMeanGbs) {}
