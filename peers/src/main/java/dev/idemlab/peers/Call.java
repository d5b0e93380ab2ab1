package dev.idemlab.peers;

import java.util.Objects;

/**
 * One caller's request and what it got, timed from the start of its experiment.
 *
 * @param caller {@code A}, {@code B}, ... in arrival order
 * @param request what the caller sent
 * @param startMs when the call began, in ms since the experiment started
 * @param endMs when it returned or threw
 * @param response what it got
 */
public record Call(String caller, ChargeRequest request, long startMs, long endMs, Response response) {

    public Call {
        Objects.requireNonNull(caller, "caller");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(response, "response");
    }
}
