/* test_device.c - which GPUs a build runs on, from the compute
 * capabilities it was built for (no GPU needed): machine code runs on
 * its own major version at the same or a higher minor, the PTX of the
 * last on anything at or above it. */
#include "device.h"
#include "test.h"

static const char DEFAULT_SMS[] = "75 80 86 89 90 100 120";

int main(void)
{
    /* The default list: Turing through Blackwell, and newer by PTX. */
    EXPECT(cm_sms_can_run(DEFAULT_SMS, 7, 5));   /* T4 */
    EXPECT(cm_sms_can_run(DEFAULT_SMS, 8, 0));   /* A100 */
    EXPECT(cm_sms_can_run(DEFAULT_SMS, 8, 7));   /* Orin: sm_86 code */
    EXPECT(cm_sms_can_run(DEFAULT_SMS, 8, 9));   /* L4 */
    EXPECT(cm_sms_can_run(DEFAULT_SMS, 9, 0));   /* H100, H200 */
    EXPECT(cm_sms_can_run(DEFAULT_SMS, 10, 3));  /* B300: sm_100 code */
    EXPECT(cm_sms_can_run(DEFAULT_SMS, 12, 1));  /* sm_120 code */
    EXPECT(cm_sms_can_run(DEFAULT_SMS, 13, 0));  /* PTX of 120 */
    EXPECT(!cm_sms_can_run(DEFAULT_SMS, 7, 0));  /* V100: 7.5 > 7.0 */
    EXPECT(!cm_sms_can_run(DEFAULT_SMS, 6, 1));  /* Pascal */
    EXPECT(!cm_sms_can_run(DEFAULT_SMS, 11, 0)); /* below the PTX's 12.0 */

    /* make SMS=90: an H100 build runs on later GPUs through PTX only. */
    EXPECT(cm_sms_can_run("90", 9, 0));
    EXPECT(cm_sms_can_run("90", 10, 0));
    EXPECT(cm_sms_can_run("90", 12, 0));
    EXPECT(!cm_sms_can_run("90", 8, 9));
    EXPECT(!cm_sms_can_run("90", 7, 5));
    EXPECT(cm_sms_can_run("  80\t90  ", 8, 6));  /* any spacing */

    /* Arch-specific code (90a) runs on its exact capability only, family
     * code (100f) on its major version; neither gives PTX for later. */
    EXPECT(cm_sms_can_run("90a", 9, 0));
    EXPECT(!cm_sms_can_run("90a", 10, 0));
    EXPECT(cm_sms_can_run("80 90a", 8, 6));
    EXPECT(!cm_sms_can_run("80 90a", 12, 0));
    EXPECT(cm_sms_can_run("100f", 10, 3));
    EXPECT(!cm_sms_can_run("100f", 12, 0));
    EXPECT(!cm_sms_can_run("100a", 10, 3));

    /* A list with no numbers in it says nothing, so nothing is refused;
     * words among numbers are skipped. */
    EXPECT(cm_sms_can_run("", 6, 1));
    EXPECT(cm_sms_can_run("   ", 6, 1));
    EXPECT(cm_sms_can_run("native", 6, 1));
    EXPECT(!cm_sms_can_run("sm_75 90", 7, 5));
    EXPECT(cm_sms_can_run("90x 75", 7, 5));
    EXPECT(cm_sms_can_run("90x 75", 9, 0));   /* through 75's PTX */
    return test_summary();
}
