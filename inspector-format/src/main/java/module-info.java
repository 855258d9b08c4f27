/**
 * The JSON Lines record format of the NCCL Inspector ({@code io.ncclinspector.format}): the names
 * and JSON types of every field a record line has, shared by the writer and the report.
 */
module io.ncclinspector.format {
  exports io.ncclinspector.format;
}
