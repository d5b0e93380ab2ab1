package dev.idemlab.idempotency.tck;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.tck.FlawedMemoryStore.Flaw;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The kit earns its name only if it fails stores that are wrong. Each flawed memory store below runs
 * the whole kit in a nested engine; the test names the contract tests that must catch it. The
 * flawless one must pass every test, so a failure here is the flaw and not the harness.
 */
class BrokenStoresFailTheKitTest {

    @Test
    void theFlawlessStorePassesTheWholeKit() {
        assertThat(failedTests(FlawlessStore.class)).isEmpty();
        assertThat(run(FlawlessStore.class).testEvents().succeeded().count()).isGreaterThan(20);
    }

    @Test
    void aCompletedRecordThatExpiresWithTheLeaseFailsTheTtlTest() {
        assertThat(failedTests(CompletedExpiresWithTheLease.class))
                .contains("aCompletedRecordLivesForItsTtlNotForTheLeaseOfTheReservationItCameFrom");
    }

    @Test
    void aRemainingLeaseThatNeverShrinksFailsTheShrinkingTest() {
        assertThat(failedTests(LeaseRemainingNeverShrinks.class)).contains("theRemainingLeaseShrinksAsTimePasses");
    }

    @Test
    void aCompleteThatIgnoresTheTokenFailsTheTokenTests() {
        assertThat(failedTests(CompleteIgnoresTheToken.class))
                .contains("completeWithAnotherTokenIsRefusedAndChangesNothing",
                        "aStaleHolderCannotCompleteOrReleaseOverTheNewOwner");
    }

    @Test
    void aReleaseThatDeletesCompletedRecordsFailsTheReleaseTest() {
        assertThat(failedTests(ReleaseDeletesCompletedRecords.class)).contains("releaseCannotDeleteACompletedRecord");
    }

    @Test
    void aReserveThatIsNotAtomicFailsTheConcurrencyTest() {
        assertThat(failedTests(ReserveIsNotAtomic.class)).contains("concurrentReservesOnOneKeyHaveExactlyOneWinner");
    }

    private static EngineExecutionResults run(Class<?> kit) {
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(kit)).execute();
    }

    private static List<String> failedTests(Class<?> kit) {
        return run(kit).testEvents().failed().stream()
                .map(Event::getTestDescriptor)
                .map(descriptor -> descriptor.getDisplayName().replace("()", ""))
                .toList();
    }

    /** The kit over one flawed store; nested, so that only the engine above runs it. */
    abstract static class FlawedKit extends IdempotencyStoreContract {
        private final ManualTicker ticker = new ManualTicker();
        private final FlawedMemoryStore store = new FlawedMemoryStore(flaw(), ticker);

        abstract Flaw flaw();

        @Override
        protected IdempotencyStore store() {
            return store;
        }

        @Override
        protected void forceExpiry(String namespace) {
            ticker.advance(TTL.plusSeconds(1));
        }

        @Override
        protected void elapse(Duration time) {
            ticker.advance(time);
        }
    }

    static class FlawlessStore extends FlawedKit {
        @Override
        Flaw flaw() {
            return Flaw.NONE;
        }
    }

    static class CompletedExpiresWithTheLease extends FlawedKit {
        @Override
        Flaw flaw() {
            return Flaw.COMPLETED_EXPIRES_WITH_THE_LEASE;
        }
    }

    static class LeaseRemainingNeverShrinks extends FlawedKit {
        @Override
        Flaw flaw() {
            return Flaw.LEASE_REMAINING_NEVER_SHRINKS;
        }
    }

    static class CompleteIgnoresTheToken extends FlawedKit {
        @Override
        Flaw flaw() {
            return Flaw.COMPLETE_IGNORES_THE_TOKEN;
        }
    }

    static class ReleaseDeletesCompletedRecords extends FlawedKit {
        @Override
        Flaw flaw() {
            return Flaw.RELEASE_DELETES_COMPLETED_RECORDS;
        }
    }

    static class ReserveIsNotAtomic extends FlawedKit {
        @Override
        Flaw flaw() {
            return Flaw.RESERVE_IS_NOT_ATOMIC;
        }
    }
}
