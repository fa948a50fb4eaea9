port: {{ port }}
