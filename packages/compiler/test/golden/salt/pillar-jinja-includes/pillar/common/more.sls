more:
  from: {{ grains['kernel'] }}
