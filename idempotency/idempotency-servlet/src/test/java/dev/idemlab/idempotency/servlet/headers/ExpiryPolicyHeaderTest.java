package dev.idemlab.idempotency.servlet.headers;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The header's wire form: a Dictionary of Integer seconds, ttl rounded down, lease rounded up. */
class ExpiryPolicyHeaderTest {

    @Test
    void theTtlIsRoundedDownAndTheLeaseUpSoAClientTrustingEitherIsNeverWrong() {
        assertThat(ExpiryPolicyHeader.valueOf(Duration.ofMillis(86_400_900), Duration.ofMillis(30_001)))
                .isEqualTo("ttl=86400, lease=31");
        assertThat(ExpiryPolicyHeader.valueOf(Duration.ofHours(24), Duration.ofSeconds(30)))
                .isEqualTo("ttl=86400, lease=30");
    }

    @Test
    void parsingIgnoresMembersAndParametersItDoesNotKnowAsRfc8941Asks() {
        assertThat(ExpiryPolicyHeader.parse("lease=30;unit=s,ttl=86400 ,  wait=5, beta"))
                .isEqualTo(new ExpiryPolicyHeader.Policy(Duration.ofSeconds(86_400), Duration.ofSeconds(30)));
    }

    @Test
    void aMalformedValueIsRefusedNamingTheRule() {
        assertThatThrownBy(() -> ExpiryPolicyHeader.parse("ttl=86400")).hasMessageContaining("no 'lease' member");
        assertThatThrownBy(() -> ExpiryPolicyHeader.parse("ttl=1.5, lease=3"))
                .hasMessageContaining("non-negative Integer of seconds");
        assertThatThrownBy(() -> ExpiryPolicyHeader.parse("TTL=5, lease=3")).hasMessageContaining("RFC 8941");
        assertThatThrownBy(() -> ExpiryPolicyHeader.parse("ttl=-5, lease=3"))
                .hasMessageContaining("non-negative");
    }
}
