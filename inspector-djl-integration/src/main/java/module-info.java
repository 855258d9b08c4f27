/** The inspector in DJL training: {@code NcclTrainingListener}, a DJL {@code TrainingListener}. */
module io.ncclinspector.djl {
  requires transitive io.ncclinspector;
  requires ai.djl.api; /* an automatic module: not re-exported (a user has it already) */
  requires org.slf4j;

  exports io.ncclinspector.djl;
}
