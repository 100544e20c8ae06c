/* bare_decode.h - --bare-decode (bare_decode.cu): nvJPEG's batched
 * decode timed alone, the rate the pipeline is measured against.
 *
 *   bare_decode(&run, passes, &verdict);   after pipeline_start
 */
#ifndef BARE_DECODE_H
#define BARE_DECODE_H

#include "verify.h"

#include "pipeline.h"

/* Every file read and screened first, into one pinned block; then only
 * the nvjpegDecodeBatched calls timed, batch after batch on the
 * pipeline's streams, `passes` times after one untimed pass. The last
 * batch goes through the kernel and the sampled check. Prints its lines
 * and adds its checks to v. */
void bare_decode(batch_run *r, int passes, cm_verdict *v);

#endif /* BARE_DECODE_H */
