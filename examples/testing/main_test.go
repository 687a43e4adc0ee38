package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Run(context.Background(), &out))
	assert.Equal(t, "Put with its answer lost: err=<nil>, version 1, answers lost 1\n"+
		"after 29 minutes: err=<nil>\n"+
		"after 30 minutes: expired: true\n", out.String())
}
