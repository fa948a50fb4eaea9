Assure Resource Group Present {{ params.get('rg_name').get('your_rg') }}:
  azure.resource_groups.present:
    - resource_group_name: {{ params.get('rg_name').get('your_rg') }}
    - parameters:
      - location{{ params['locations'][4].name }}

Assure Resource Group Present {{ params.get('rg_name').get('my_rg', 'rg') }}:
  azure.resource_groups.present:
    - resource_group_name: {{ params.get('rg_name').get('my_rg', 'rg') }}
    - parameters:
      - location{{ params['locations'][0].name }}
    - port: {{ params.get('port', 8080) }}
