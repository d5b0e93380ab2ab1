package dev.idemlab.lab.scenario;

import dev.idemlab.lab.policy.LabPolicy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the post says each run must show, checked against the run's ledger and responses. The
 * scenarios never decide their own verdict: they report what happened, and this class compares.
 */
public final class Expectations {

    private static final String IN_PROGRESS = "IdempotencyInProgressException";
    private static final String KEY_REUSE = "IdempotencyKeyReuseException";
    private static final String PROVIDER_TIMEOUT = "ProviderTimeoutException";
    private static final String STORE_UNAVAILABLE = "IdempotencyStoreUnavailableException";

    /** The DBOS crashed-worker cells' scenario name: the scenario lives beside the other peers, its verdict here. */
    public static final String DBOS_CRASHED_WORKER = "dbos-crashed-worker";

    private Expectations() { }

    /** Checks one run; the result says what was expected and what the ledger shows. */
    public static CheckResult check(ScenarioRun run) {
        List<String> problems = new ArrayList<>();
        LabPolicy policy = LabPolicy.valueOf(run.policy().toUpperCase(Locale.ROOT));
        boolean failureLab = run.settings().containsKey("mitigated");
        // The unmitigated failover must show the charge replication lost: there, two is the finding.
        boolean failover = run.scenario().equals(FailoverScenario.NAME);
        boolean lossExpected = failover && run.label().equals(FailoverScenario.WITHOUT_WAIT);
        if (policy.promisesExactlyOnce() && run.charges().size() > 1 && !failureLab && !lossExpected) {
            problems.add("policy " + run.policy() + " promises exactly-once but the provider charged "
                    + run.charges().size() + " times " + run.charges());
        }
        switch (run.scenario()) {
            case "in-flight" -> checkInFlight(run, policy, problems);
            case "key-reuse" -> expectResponses(run, problems, 1, "C", "C", KEY_REUSE);
            case "provider-timeout" -> expectResponses(run, problems, 1, PROVIDER_TIMEOUT, "C");
            case "store-down" -> {
                if (failureLab) {
                    FailureExpectations.check(run, problems);
                } else {
                    checkStoreDown(run, problems);
                }
            }
            case "lease-overrun", "crash-mid-charge", "ghost-reservation", "provider-ambiguous", "scope",
                    "large-result", "eviction" -> FailureExpectations.check(run, problems);
            case "crash-mid-order", "stale-holder-order" -> FailureExpectations.checkOrder(run, problems);
            case FailoverScenario.NAME -> checkFailover(run, problems);
            case RedeliveryScenario.NAME -> checkRedelivery(run, policy, problems);
            case RedeliveryCrashScenario.NAME -> FailureExpectations.checkRedeliveryCrash(run, problems);
            case DBOS_CRASHED_WORKER -> FailureExpectations.checkDbosCrashedWorker(run, problems);
            default -> problems.add("no expectation is known for scenario " + run.scenario());
        }
        Object client = run.settings().containsKey("target") ? run.settings().get("target") : run.settings().get("client");
        String name = run.scenario() + "/" + run.policy()
                + (failureLab ? " " + run.label() : failover ? " (" + run.label() + ")" : "")
                + (client == null ? "" : " (" + client + ")");
        if (problems.isEmpty()) {
            String as = failureLab ? "as the lab expects" : failover ? "as expected" : "as the post shows";
            return new CheckResult(true, run.store().store(), name, as + ": responses "
                    + run.responses() + ", charges made " + run.charges());
        }
        return new CheckResult(false, run.store().store(), name, String.join("; ", problems));
    }

    private static void checkInFlight(ScenarioRun run, LabPolicy policy, List<String> problems) {
        int callers = run.callers().size();
        switch (policy) {
            case RUN -> {
                if (run.charges().size() < 2) {
                    problems.add("the run policy did not double-charge (charges " + run.charges()
                            + "): the race was not reproduced and the lab has lost its point");
                }
                if (run.responses().stream().distinct().count() != 1) {
                    problems.add("a result cache answers every caller alike, got " + run.responses());
                }
            }
            case WAIT -> expectResponses(run, problems, 1, repeat("C", callers));
            case RAISE -> {
                // Over HTTP the in-progress error is the draft's status.
                String[] expected = repeat("http".equals(run.settings().get("transport")) ? "409" : IN_PROGRESS, callers);
                expected[0] = "C";
                expectResponses(run, problems, 1, expected);
            }
        }
    }

    /**
     * The race on a consumer group: B must have been delivered the record while A was inside the charge;
     * then the processed-messages table (run) charges twice, the adapter (wait, raise) and the inbox once,
     * B replaying A's charge, and the inbox leaves one order row.
     */
    private static void checkRedelivery(ScenarioRun run, LabPolicy policy, List<String> problems) {
        if (!Boolean.TRUE.equals(run.settings().get("bDuringA"))) {
            problems.add("B was not delivered the record while A was inside the charge (" + run.note()
                    + "): the race was not staged");
        }
        if (policy == LabPolicy.RUN) {
            if (run.charges().size() != 2) {
                problems.add("the processed-messages table did not charge twice (ledger " + run.charges()
                        + "): the race was not reproduced and the lab has lost its point");
            }
        } else {
            expectResponses(run, problems, 1, "C", "C");
        }
        Object orders = run.settings().get("orders");
        if ("the inbox".equals(run.settings().get("target")) && orders == null) {
            problems.add("the inbox's row did not read its order rows back");
        } else if (orders != null && ((Number) orders).intValue() != 1) {
            problems.add("the inbox must leave exactly one order row, read back " + orders);
        }
    }

    private static void checkStoreDown(ScenarioRun run, List<String> problems) {
        if (run.label().equals("fail closed")) {
            expectResponses(run, problems, 0, STORE_UNAVAILABLE);
        } else {
            expectResponses(run, problems, 1, "C");
        }
        if (run.storageErrors() == 0) {
            problems.add("the store was down but no storage error was counted");
        }
    }

    private static void checkFailover(ScenarioRun run, List<String> problems) {
        if (run.label().equals(FailoverScenario.WITHOUT_WAIT)) {
            if (run.charges().size() != 2) {
                problems.add("without WAIT the failover should have lost A's reservation and let the retry charge again, "
                        + "but the ledger has " + run.charges() + ": the loss was not reproduced");
            }
            if (!run.responses().equals(run.charges())) {
                problems.add("expected each caller to get its own charge " + run.charges() + ", got " + run.responses());
            }
        } else {
            expectResponses(run, problems, 1, STORE_UNAVAILABLE, "C");
            if (run.storageErrors() == 0) {
                problems.add("no replica could acknowledge A's reservation, yet no storage error was counted");
            }
        }
    }

    /**
     * Expects exactly {@code charges} charges and these responses, where "C" stands for the
     * ledger's first charge id.
     */
    static void expectResponses(ScenarioRun run, List<String> problems, int charges, String... expected) {
        if (run.charges().size() != charges) {
            problems.add("expected " + charges + " charge(s), the ledger has " + run.charges());
        }
        String charge = run.charges().isEmpty() ? "<no charge>" : run.charges().get(0);
        List<String> want = new ArrayList<>();
        for (String e : expected) {
            want.add(e.equals("C") ? charge : e);
        }
        if (!want.equals(run.responses())) {
            problems.add("expected responses " + want + ", got " + run.responses());
        }
    }

    private static String[] repeat(String value, int times) {
        String[] values = new String[times];
        java.util.Arrays.fill(values, value);
        return values;
    }
}
