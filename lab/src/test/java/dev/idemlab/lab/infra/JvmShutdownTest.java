package dev.idemlab.lab.infra;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The probe answers "not exiting" in a running JVM, also twice in a row (it leaves no hook behind). */
class JvmShutdownTest {

    @Test
    void aRunningJvmIsNotShuttingDownAndTheProbeLeavesNoHook() {
        assertThat(JvmShutdown.inProgress()).isFalse();
        assertThat(JvmShutdown.inProgress()).isFalse();
    }
}
