package io.kaas.broker.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.storage.ReadLimit;
import org.junit.jupiter.api.Test;

class FetchBudgetTest {
    @Test
    void onlyTheFirstNonEmptyPartitionMayExceed() {
        FetchBudget budget = new FetchBudget(1_000);
        assertThat(budget.next(5_000)).contains(ReadLimit.atLeastOneBatch(1_000));
        budget.took(0); // an empty partition does not use the exception
        assertThat(budget.next(300)).contains(ReadLimit.atLeastOneBatch(300));
        budget.took(900); // over its partition limit: allowed, once
        assertThat(budget.next(5_000)).contains(ReadLimit.strictly(100));
        budget.took(100);
        assertThat(budget.next(5_000)).isEmpty();
        assertThat(budget.taken()).isEqualTo(1_000);
    }

    @Test
    void aFirstBatchOverTheResponseLimitLeavesNothingForTheOthers() {
        FetchBudget budget = new FetchBudget(1_000_000);
        budget.took(921_680);
        assertThat(budget.next(1 << 20)).contains(ReadLimit.strictly(1_000_000 - 921_680));
        FetchBudget over = new FetchBudget(100_000);
        over.took(921_680);
        assertThat(over.next(1 << 20)).isEmpty();
    }

    @Test
    void noResponseLimitLeavesThePartitionLimits() {
        FetchBudget budget = new FetchBudget(0);
        budget.took(10);
        assertThat(budget.next(64)).contains(ReadLimit.strictly(64));
        assertThat(new FetchBudget(-1).next(0)).contains(ReadLimit.atLeastOneBatch(0));
    }
}
