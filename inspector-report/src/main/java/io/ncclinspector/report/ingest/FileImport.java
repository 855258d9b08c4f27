package io.ncclinspector.report.ingest;

import io.ncclinspector.report.input.Compression;

/**
 * How one input file was imported.
 *
 * @param file display name
 * @param path absolute path
 * @param compression storage
 * @param sizeBytes size on disk
 * @param records records imported
 * @param rejected lines skipped as unusable
 * @param rejectedListed how many of them are listed with line numbers
 * @param damage a problem of the whole file (truncated or corrupt gzip, read error), or null
 * @param corrupt whether that damage hides data the file holds (corrupt gzip data, a read error)
 *     rather than the file merely ending early: the report then exits with status 1
 * @param salvaged whether the file was read line by line by the report instead of by DuckDB
 *     (because DuckDB could not read it, or its name is not safe to hand to DuckDB)
 */
public record FileImport(String file, String path, Compression compression, long sizeBytes,
    long records, long rejected, long rejectedListed, String damage, boolean corrupt,
    boolean salvaged) {}
