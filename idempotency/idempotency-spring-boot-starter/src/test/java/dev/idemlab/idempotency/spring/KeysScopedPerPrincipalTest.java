package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyAspectAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 39, defect 7b: {@code @Idempotent} keys were global, so one principal's key blocked another's
 * request (a key reused with another fingerprint) or replayed another's result (the same fingerprint).
 * Now they are scoped per Spring Security principal, as the servlet filter scopes a route's keys;
 * callers without an authenticated principal share one scope that no principal's name reaches;
 * {@link GlobalKey} keeps a method's keys global; without Spring Security on the class path nothing is
 * scoped. On the in-memory store; the bean counts its runs.
 */
class KeysScopedPerPrincipalTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyAspectAutoConfiguration.class))
            .withBean(Transfers.class, Transfers::new);

    @AfterEach
    void clearTheContext() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void oneKeyUnderTwoPrincipalsRunsOnceForEachAndNeitherBlocksNorReadsTheOther() {
        runner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);
            int alices = as(user("alice"), () -> transfers.send("k-1", 10));
            int bobsOther = as(user("bob"), () -> transfers.send("k-1", 20));
            int bobsSame = as(user("carol"), () -> transfers.send("k-1", 10));

            assertThat(List.of(alices, bobsOther, bobsSame)).containsExactly(1, 2, 3);
            assertThat(as(user("alice"), () -> transfers.send("k-1", 10))).as("alice's retry replays hers")
                    .isEqualTo(alices);
            assertThatThrownBy(() -> as(user("alice"), () -> transfers.send("k-1", 30)))
                    .isInstanceOf(IdempotencyKeyReuseException.class);
        });
    }

    @Test
    void anonymousCallersShareOneScopeThatAPrincipalNamedAnonymousNeverReaches() {
        runner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);
            int noAuthentication = transfers.send("k-2", 10);
            int anonymousToken = as(new AnonymousAuthenticationToken("key", "anonymous",
                    AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")), () -> transfers.send("k-2", 10));
            int namedAnonymous = as(user("anonymous"), () -> transfers.send("k-2", 10));
            int namedEmpty = as(user(""), () -> transfers.send("k-2", 10));

            assertThat(anonymousToken).as("two anonymous callers share a scope").isEqualTo(noAuthentication);
            assertThat(List.of(noAuthentication, namedAnonymous, namedEmpty)).doesNotHaveDuplicates();
            assertThat(transfers.runs()).isEqualTo(3);
        });
    }

    @Test
    void aGlobalKeyIsSharedByEveryPrincipal() {
        runner.run(context -> {
            Transfers transfers = context.getBean(Transfers.class);
            int alices = as(user("alice"), () -> transfers.sendGlobal("k-3", 10));
            assertThat(as(user("bob"), () -> transfers.sendGlobal("k-3", 10))).isEqualTo(alices);
            assertThatThrownBy(() -> as(user("bob"), () -> transfers.sendGlobal("k-3", 20)))
                    .isInstanceOf(IdempotencyKeyReuseException.class);
            assertThat(transfers.runs()).isEqualTo(1);
        });
    }

    @Test
    void withoutSpringSecurityOnTheClassPathKeysStayGlobalAsBefore() {
        runner.withClassLoader(new FilteredClassLoader(SecurityContextHolder.class)).run(context -> {
            Transfers transfers = context.getBean(Transfers.class);
            int alices = as(user("alice"), () -> transfers.send("k-4", 10));
            assertThat(as(user("bob"), () -> transfers.send("k-4", 10))).isEqualTo(alices);
            assertThat(transfers.runs()).isEqualTo(1);
        });
    }

    @Test
    void aScopedOperationTooLongForTheScopeFailsStartupNamingTheRuleAndAGlobalOneStarts() {
        runner.withBean(LongOperation.class, LongOperation::new).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("LongOperation.send")
                    .hasMessageContaining("at most 65")
                    .hasMessageContaining("@GlobalKey");
        });
        runner.withBean(LongGlobalOperation.class, LongGlobalOperation::new)
                .run(context -> assertThat(context).hasNotFailed());
    }

    private static Authentication user(String name) {
        return UsernamePasswordAuthenticationToken.authenticated(name, "n/a", List.of());
    }

    private static int as(Authentication authentication, java.util.function.IntSupplier call) {
        SecurityContextHolder.getContext().setAuthentication(authentication);
        try {
            return call.getAsInt();
        } finally {
            SecurityContextHolder.clearContext();
        }
    }

    /** A transfer per key: each run answers its own sequence number. */
    public static class Transfers {

        private final AtomicInteger runs = new AtomicInteger();

        @Idempotent(operation = "transfer.send")
        public int send(@IdempotencyKey String key, long amount) {
            return runs.incrementAndGet();
        }

        @Idempotent(operation = "transfer.send-global")
        @GlobalKey
        public int sendGlobal(@IdempotencyKey String key, long amount) {
            return runs.incrementAndGet();
        }

        public int runs() {
            return runs.get();
        }
    }

    /** An operation of 66 characters: one too many for a principal's scope. */
    public static class LongOperation {

        @Idempotent(operation = "a.very.long.operation.name.that.leaves.no.room.for.the.scope.xxxxx")
        public int send(@IdempotencyKey String key) {
            return 1;
        }
    }

    /** The same operation, global on purpose: not scoped, so it fits. */
    public static class LongGlobalOperation {

        @Idempotent(operation = "a.very.long.operation.name.that.leaves.no.room.for.the.scope.xxxxx")
        @GlobalKey
        public int send(@IdempotencyKey String key) {
            return 1;
        }
    }
}
